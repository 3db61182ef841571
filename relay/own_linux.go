package relay

import (
	"bytes"
	"fmt"
	"os"
)

// cpuWatch tells whether a loop's CPU is its own: whether, over the last
// window, the loop's thread waited for its CPU while another task ran
// there. The kernel counts that wait per thread (/proc/thread-self/
// schedstat, its second field: time runnable on a run queue, in ns). A
// polling loop is always runnable, so every microsecond another task runs
// on its CPU is a microsecond of its wait; a sleeping one waits when it is
// woken while a client or server beside it runs. So the loop polls only
// while nothing else wants its CPU, and when something arrives (the
// scheduler gives it the CPU at the loop's slice end) the next window shows
// it and the loop sleeps again.
type cpuWatch struct {
	stat   *os.File
	buf    [128]byte
	at     int64 // nanotime of the last reading
	runNs  int64 // the thread's time on its CPU at it
	waitNs int64 // the thread's run-queue wait at it
}

// newCPUWatch starts watching from the calling thread, which must be
// locked to its OS thread.
func newCPUWatch(now int64) (*cpuWatch, error) {
	f, err := os.Open("/proc/thread-self/schedstat")
	if err != nil {
		return nil, err
	}
	w := &cpuWatch{stat: f, at: now}
	if w.runNs, w.waitNs, err = w.read(); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *cpuWatch) close() { w.stat.Close() }

// due reports whether a window has passed since the last reading.
func (w *cpuWatch) due(now int64) bool { return now-w.at >= int64(OwnWindow) }

// check reads the wait again and says whether the CPU was the loop's own
// over the window since the last reading. A failed reading counts as not
// own.
func (w *cpuWatch) check(now int64) bool {
	run, wait, err := w.read()
	if err != nil {
		return false
	}
	own := ownWindow(run-w.runNs, wait-w.waitNs)
	w.at, w.runNs, w.waitNs = now, run, wait
	return own
}

// ownWindow says whether a thread that ran for ran ns and waited on a run
// queue for waited ns over a window had its CPU to itself.
func ownWindow(ran, waited int64) bool { return float64(waited) < OwnMaxWait*float64(ran) }

func (w *cpuWatch) read() (run, wait int64, err error) {
	n, err := w.stat.ReadAt(w.buf[:], 0)
	if n == 0 {
		return 0, 0, fmt.Errorf("/proc/thread-self/schedstat: %w", err)
	}
	return parseSchedstat(w.buf[:n])
}

// parseSchedstat returns the first two fields of a schedstat line
// (sched-stats docs: time on CPU, time waiting on a run queue,
// timeslices), in ns.
func parseSchedstat(b []byte) (run, wait int64, err error) {
	fields := bytes.Fields(b)
	if len(fields) < 2 {
		return 0, 0, fmt.Errorf("schedstat %q: want three counts", b)
	}
	run, ok := atoi(fields[0])
	if !ok {
		return 0, 0, fmt.Errorf("schedstat %q: time on CPU %q is not a count", b, fields[0])
	}
	if wait, ok = atoi(fields[1]); !ok {
		return 0, 0, fmt.Errorf("schedstat %q: run-queue wait %q is not a count", b, fields[1])
	}
	return run, wait, nil
}

// atoi parses a non-negative decimal without allocating.
func atoi(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}
