package relay

import (
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hoplat/hoplat/affinity"
)

func TestParseRunDelay(t *testing.T) {
	for _, tc := range []struct {
		in  string
		ns  int64
		err string
	}{
		{"5737809 1234 2\n", 1234, ""},
		{"1 0 0", 0, ""},
		{"1\n", 0, "want three counts"},
		{"1 -5 2", 0, `"-5" is not a count`},
	} {
		ns, err := parseRunDelay([]byte(tc.in))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %d, %v; want an error saying %q", tc.in, ns, err, tc.err)
			}
			continue
		}
		if err != nil || ns != tc.ns {
			t.Errorf("%q: %d, %v; want %d", tc.in, ns, err, tc.ns)
		}
	}
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		t.Skip(err)
	}
	if _, err := parseRunDelay(b); err != nil {
		t.Errorf("/proc/thread-self/schedstat: %v", err)
	}
}

func FuzzParseRunDelay(f *testing.F) {
	f.Add([]byte("5737809 1234 2\n"))
	f.Add([]byte("1 99999999999999999999 2"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, b []byte) {
		if ns, err := parseRunDelay(b); err == nil && ns < 0 {
			t.Fatalf("negative wait %d from %q", ns, b)
		}
	})
}

// TestCPUWatch: a thread alone on its CPU finds it its own, even while it
// spins; another thread running there makes it shared.
func TestCPUWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("two windows of OwnWindow each, spinning")
	}
	online, err := affinity.OnlineCPUs()
	if err != nil || online.Len() < 2 {
		t.Skip("needs two CPUs: one for the watched thread, one for the test's others")
	}
	cpu := online.CPUs()[online.Len()-1]
	done := make(chan [2]bool)
	var stop atomic.Bool
	hog := make(chan bool)
	go func() {
		runtime.LockOSThread() // exits locked: the runtime retires the pinned thread
		if _, err := affinity.PinThread(affinity.NewCPUSet(cpu)); err != nil {
			t.Error(err)
			done <- [2]bool{}
			return
		}
		w, err := newCPUWatch(nanotime())
		if err != nil {
			t.Error(err)
			done <- [2]bool{}
			return
		}
		defer w.close()
		var res [2]bool
		for i := range 2 {
			if i == 1 {
				hog <- true // the second window shares the CPU
			}
			// Spin through the window, as a polling loop does.
			for !w.due(nanotime()) {
			}
			res[i] = w.check(nanotime())
		}
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
	if !res[0] {
		t.Errorf("alone and spinning on CPU %d for %v: not its own", cpu, OwnWindow)
	}
	if res[1] {
		t.Errorf("beside a busy thread on CPU %d for %v: still its own", cpu, OwnWindow)
	}
}
