package affinity

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// onThread runs f on a goroutine of its own, locked to a fresh OS thread
// that the runtime discards when the goroutine exits still locked, so a
// test can change the thread's mask, nice value or credentials freely.
func onThread(f func() error) error {
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		errc <- f()
	}()
	return <-errc
}

// allowedCPUs returns the CPUs this process may use, skipping the test if
// it has fewer than two: pinning is then indistinguishable from not pinning.
func allowedCPUs(t *testing.T) CPUSet {
	t.Helper()
	var allowed CPUSet
	err := onThread(func() (err error) {
		allowed, err = ThreadCPUs()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if allowed.Len() < 2 {
		t.Skipf("process may use only CPUs %s; need two", allowed)
	}
	return allowed
}

func TestPinThread(t *testing.T) {
	allowed := allowedCPUs(t)
	// CPU 1 first: a thread usually starts on CPU 0, so moving away from it
	// proves the kernel migrated the thread before returning.
	for _, cpu := range []int{allowed.cpus[1], allowed.cpus[0]} {
		err := onThread(func() error {
			want := NewCPUSet(cpu)
			granted, err := PinThread(want)
			if err != nil {
				return err
			}
			if !granted.Equal(want) {
				t.Errorf("PinThread(%s) granted %s", want, granted)
			}
			var mask unix.CPUSet
			if err := unix.SchedGetaffinity(0, &mask); err != nil {
				return err
			}
			if mask.Count() != 1 || !mask.IsSet(cpu) {
				t.Errorf("after PinThread(%s), sched_getaffinity reads %d CPUs, CPU %d set: %v", want, mask.Count(), cpu, mask.IsSet(cpu))
			}
			if now, err := ThreadCPUs(); err != nil || !now.Equal(want) {
				t.Errorf("after PinThread(%s), ThreadCPUs = %s, %v", want, now, err)
			}
			// sched_setaffinity migrates the calling thread before it
			// returns, so the very next getcpu must see the new CPU.
			if got, err := CurrentCPU(); err != nil || got != cpu {
				t.Errorf("after PinThread(%s), CurrentCPU = %d, %v", want, got, err)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// The pinned threads died with their goroutines; a new one is unpinned.
	if now := allowedCPUs(t); !now.Equal(allowed) {
		t.Errorf("a pinned thread was reused: a fresh thread may use %s, before %s", now, allowed)
	}
}

func TestPinThreadErrors(t *testing.T) {
	allowed := allowedCPUs(t)
	online, err := OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	offline := online.cpus[online.Len()-1] + 1
	err = onThread(func() error {
		_, err := PinThread(NewCPUSet(0, offline))
		if !errors.Is(err, ErrNotOnline) || !strings.Contains(err.Error(), "not online") {
			t.Errorf("PinThread(0,%d) error %v, want ErrNotOnline", offline, err)
		}
		if _, err := PinThread(CPUSet{}); err == nil || !strings.Contains(err.Error(), "empty") {
			t.Errorf("PinThread(empty) error %v", err)
		}
		if now, err := ThreadCPUs(); err != nil || !now.Equal(allowed) {
			t.Errorf("failed pins changed the mask to %s, %v", now, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func BenchmarkCurrentCPU(b *testing.B) {
	for b.Loop() {
		if _, err := CurrentCPU(); err != nil {
			b.Fatal(err)
		}
	}
}
