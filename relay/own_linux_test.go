package relay

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hoplat/hoplat/affinity"
)

func TestParseSchedstat(t *testing.T) {
	for _, tc := range []struct {
		in        string
		run, wait int64
		err       string
	}{
		{"5737809 1234 2\n", 5737809, 1234, ""},
		{"1 0 0", 1, 0, ""},
		{"1\n", 0, 0, "want three counts"},
		{"1 -5 2", 0, 0, `"-5" is not a count`},
		{"x 5 2", 0, 0, `time on CPU "x" is not a count`},
	} {
		run, wait, err := parseSchedstat([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %d %d, %v; want an error saying %q", tc.in, run, wait, err, tc.err)
			}
			continue
		}
		if err != nil || run != tc.run || wait != tc.wait {
			t.Errorf("%q: %d %d, %v; want %d %d", tc.in, run, wait, err, tc.run, tc.wait)
		}
	}
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		t.Skip(err)
	}
	if _, _, err := parseSchedstat(b); err != nil {
		t.Errorf("/proc/thread-self/schedstat: %v", err)
	}
}

// A window is judged against the time the loop ran, not the window's
// length: packed, a loop that ran 1 ms of a mostly idle 100 ms window and
// waited 0.2 ms behind its client and server did not have its CPU, though
// 0.2 ms is 0.2% of the window. The other cases are the shares measured
// (OwnMaxWait).
func TestOwnWindow(t *testing.T) {
	for _, tc := range []struct {
		ran, waited int64
		own         bool
	}{
		{1e6, 0.2e6, false},  // packed, a window mostly idle
		{10e6, 9.5e6, false}, // packed, busy: it waits about as long as it runs
		{99e6, 0.3e6, true},  // spread, polling alone
		{45e6, 0.5e6, true},  // spread, asleep between messages
		{50e6, 50e6, false},  // beside a busy thread
		{1e6, 0, true},       // mostly idle, never waiting
	} {
		if got := ownWindow(tc.ran, tc.waited); got != tc.own {
			t.Errorf("ran %d ns, waited %d: own %v, want %v", tc.ran, tc.waited, got, tc.own)
		}
	}
}

func TestCPUWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("windows of OwnWindow each, spinning")
	}
	online, err := affinity.OnlineCPUs()
	if err != nil || online.Len() < 2 {
		t.Skip("needs two CPUs: one for the watched thread, one for the test's others")
	}
	cpu := online.CPUs()[online.Len()-1]
	// The machine's other tasks may take a share of the CPU in any one
	// window (a kworker, another process): the thread spins alone for up
	// to aloneTries windows, and the first it had to itself must read as
	// its own. Where none did, the machine never left the CPU alone, and
	// the test says so rather than fail on the machine's account.
	const aloneTries = 10
	type result struct {
		alone, beside bool
		waits         []string // the alone windows' waits, as shares of their run
	}
	done := make(chan result)
	var stop atomic.Bool
	hog := make(chan bool)
	go func() {
		runtime.LockOSThread() // exits locked: the runtime retires the pinned thread
		if _, err := affinity.PinThread(affinity.NewCPUSet(cpu)); err != nil {
			t.Error(err)
			done <- result{alone: true}
			return
		}
		w, err := newCPUWatch(nanotime())
		if err != nil {
			t.Error(err)
			done <- result{alone: true}
			return
		}
		defer w.close()
		var res result
		// Spin through each window, as a polling loop does.
		for range aloneTries {
			run, wait := w.runNs, w.waitNs
			for !w.due(nanotime()) {
			}
			if res.alone = w.check(nanotime()); res.alone {
				break
			}
			res.waits = append(res.waits, fmt.Sprintf("%.0f%%", 100*float64(w.waitNs-wait)/float64(max(1, w.runNs-run))))
		}
		hog <- true // the last window shares the CPU
		for !w.due(nanotime()) {
		}
		res.beside = w.check(nanotime())
		done <- res
	}()
	go func() {
		<-hog
		runtime.LockOSThread()
		if _, err := affinity.PinThread(affinity.NewCPUSet(cpu)); err != nil {
			t.Error(err)
			return
		}
		for !stop.Load() {
		}
	}()
	res := <-done
	stop.Store(true)
	if !res.alone {
		t.Logf("CPU %d shared in each of %d windows of %v (waits %v of the time run, OwnMaxWait %v): the machine's other tasks never left it alone; the alone window is not judged",
			cpu, aloneTries, OwnWindow, res.waits, OwnMaxWait)
	}
	// The last window's busy thread is the test's: sharing the CPU with
	// it, a thread waits about as long as it runs (the fair share), five
	// times OwnMaxWait, and the machine's other tasks only add to that.
	if res.beside {
		t.Errorf("beside a busy thread on CPU %d for %v: still its own", cpu, OwnWindow)
	}
}
