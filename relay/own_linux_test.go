package relay

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
)

func TestParseCPUBusy(t *testing.T) {
	stat := []byte("cpu  10 20 30 400 5 6 7 0 0 0\ncpu0 1 2 3 40 0 0 0 0 0 0\ncpu1 100 0 23 999 1 2 3 0 0 0\nintr 1 2 3\n")
	for _, tc := range []struct {
		prefix string
		ns     int64
		err    string
	}{
		{"cpu0 ", 6 * 10_000_000, ""},
		{"cpu1 ", 123 * 10_000_000, ""},
		{"cpu2 ", 0, "no line for cpu2"},
	} {
		ns, err := parseCPUBusy(stat, []byte(tc.prefix))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: %d, %v; want an error saying %q", tc.prefix, ns, err, tc.err)
			}
			continue
		}
		if err != nil || ns != tc.ns {
			t.Errorf("%q: %d, %v; want %d", tc.prefix, ns, err, tc.ns)
		}
	}
	if _, err := parseCPUBusy([]byte("cpu0 1 x 3\n"), []byte("cpu0 ")); err == nil || !strings.Contains(err.Error(), `field 2 "x"`) {
		t.Errorf("a bad field: %v, want an error naming it", err)
	}
	// The real file has a line for every CPU this process may use.
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		t.Skip(err)
	}
	if _, err := parseCPUBusy(b, []byte("cpu0 ")); err != nil {
		t.Errorf("/proc/stat: %v", err)
	}
}

func FuzzParseCPUBusy(f *testing.F) {
	f.Add([]byte("cpu0 1 2 3 40 0 0 0 0 0 0\n"), []byte("cpu0 "))
	f.Add([]byte("cpu1 99999999999999999999 2 3\n"), []byte("cpu1 "))
	f.Add([]byte("cpu0 1"), []byte("cpu0 "))
	f.Fuzz(func(t *testing.T, b, prefix []byte) {
		ns, err := parseCPUBusy(b, prefix)
		if err == nil && ns < 0 {
			t.Fatalf("negative busy time %d from %q", ns, b)
		}
	})
}

// TestCPUWatch: a thread alone on its CPU finds it its own, even while it
// spins; another thread running there makes it shared.
func TestCPUWatch(t *testing.T) {
	if testing.Short() {
		t.Skip("two windows of a second each")
	}
	online, err := affinity.OnlineCPUs()
	if err != nil || online.Len() < 2 {
		t.Skip("needs two CPUs: one for the watched thread, one for the test's others")
	}
	cpu := online.CPUs()[online.Len()-1]
	done := make(chan [2]bool)
	stop := make(chan struct{})
	hog := make(chan bool)
	go func() {
		runtime.LockOSThread() // exits locked: the runtime retires the pinned thread
		if _, err := affinity.PinThread(affinity.NewCPUSet(cpu)); err != nil {
			t.Error(err)
			done <- [2]bool{}
			return
		}
		w, err := newCPUWatch(cpu, nanotime())
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
		for {
			select {
			case <-stop:
				return
			default:
			}
		}
	}()
	res := <-done
	close(stop)
	if !res[0] {
		t.Errorf("alone and spinning on CPU %d for %v: not its own", cpu, OwnWindow)
	}
	if res[1] {
		t.Errorf("beside a busy thread on CPU %d for %v: still its own", cpu, OwnWindow)
	}
}
