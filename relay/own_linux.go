package relay

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"

	"golang.org/x/sys/unix"
)

// OwnWindow is how long a pinned loop under WakeAuto watches its CPU
// before it decides whether the CPU is its own; OwnMaxShare is the share of
// that window other tasks may have run there for it still to count so.
// /proc/stat counts in ticks of 10 ms: over a second, a 1% resolution.
const (
	OwnWindow   = time.Second
	OwnMaxShare = 0.05
)

// cpuWatch tells whether a loop's CPU is its own: whether, over the last
// window, tasks other than the loop's thread ran on it. It reads the
// CPU's busy time from /proc/stat (user, nice and system: the tasks';
// interrupts and softirqs, which the loop's own sends raise, are left out)
// and takes away the thread's own CPU time. A loop that polls only while
// nothing else wants its CPU holds no CPU a client or server needs: when
// one arrives it runs (the scheduler shares the CPU at slice ends), the
// window shows it, and the loop sleeps again.
type cpuWatch struct {
	cpu    int
	prefix []byte // "cpuN "
	stat   *os.File
	buf    []byte
	at     int64 // nanotime of the last reading
	busyNs int64 // the CPU's task time at it
	selfNs int64 // the thread's CPU time at it
	own    bool
}

// newCPUWatch starts watching cpu from the calling thread, which must be
// locked to its OS thread and allowed only cpu.
func newCPUWatch(cpu int, now int64) (*cpuWatch, error) {
	f, err := os.Open("/proc/stat")
	if err != nil {
		return nil, err
	}
	// The per-CPU lines come first, a hundred bytes or so each.
	w := &cpuWatch{cpu: cpu, prefix: []byte("cpu" + strconv.Itoa(cpu) + " "), stat: f, buf: make([]byte, 256+(cpu+2)*192)}
	if w.busyNs, w.selfNs, err = w.read(); err != nil {
		f.Close()
		return nil, err
	}
	w.at = now
	return w, nil
}

func (w *cpuWatch) close() { w.stat.Close() }

// due reports whether a window has passed since the last reading.
func (w *cpuWatch) due(now int64) bool { return now-w.at >= int64(OwnWindow) }

// check reads the CPU again and says whether it was the loop's own over
// the window since the last reading. A failed reading counts as not own.
func (w *cpuWatch) check(now int64) bool {
	busy, self, err := w.read()
	if err != nil {
		w.own = false
		return false
	}
	others := (busy - w.busyNs) - (self - w.selfNs)
	w.own = float64(others) < OwnMaxShare*float64(now-w.at)
	w.at, w.busyNs, w.selfNs = now, busy, self
	return w.own
}

// read returns the CPU's task time and the calling thread's, in ns.
func (w *cpuWatch) read() (busy, self int64, err error) {
	n, err := w.stat.ReadAt(w.buf, 0)
	if n == 0 {
		return 0, 0, fmt.Errorf("/proc/stat: %w", err)
	}
	busy, err = parseCPUBusy(w.buf[:n], w.prefix)
	if err != nil {
		return 0, 0, err
	}
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, 0, os.NewSyscallError("clock_gettime", err)
	}
	return busy, ts.Nano(), nil
}

// parseCPUBusy finds the line of /proc/stat that starts with prefix
// ("cpu1 ") and returns its user, nice and system time in ns (proc(5):
// USER_HZ ticks, 100 a second on every Linux).
func parseCPUBusy(b, prefix []byte) (int64, error) {
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		if !bytes.HasPrefix(line, prefix) {
			continue
		}
		var ticks int64
		rest := line[len(prefix):]
		for field := 0; field < 3; field++ {
			rest = bytes.TrimLeft(rest, " ")
			end := bytes.IndexByte(rest, ' ')
			if end < 0 {
				end = len(rest)
			}
			v, ok := atoi(rest[:end])
			if !ok {
				return 0, fmt.Errorf("/proc/stat: %s: field %d %q is not a count", bytes.TrimSpace(prefix), field+1, rest[:end])
			}
			ticks += v
			rest = rest[end:]
		}
		return ticks * int64(time.Second/100), nil
	}
	return 0, fmt.Errorf("/proc/stat: no line for %s", bytes.TrimSpace(prefix))
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
