package affinity

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// niceOf reads a thread's nice value. The raw getpriority(2) syscall
// returns 20-nice so that it is never negative; glibc undoes that, x/sys
// does not.
func niceOf(tid int) (int, error) {
	p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	return 20 - p, err
}

func TestSetNice(t *testing.T) {
	err := onThread(func() error {
		tid := unix.Gettid()
		before, err := niceOf(tid)
		if err != nil {
			return err
		}
		want := min(before+5, 19)
		if err := SetNice(want); err != nil {
			return err
		}
		if got, err := niceOf(tid); err != nil || got != want {
			t.Errorf("after SetNice(%d), thread nice is %d, %v", want, got, err)
		}
		// Nice is per thread on Linux: the main thread keeps its value.
		if main, err := niceOf(os.Getpid()); err != nil || main != before {
			t.Errorf("after SetNice(%d) on thread %d, main thread nice is %d, %v; want %d", want, tid, main, err, before)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{-21, 20} {
		if err := SetNice(n); err == nil {
			t.Errorf("SetNice(%d) succeeded", n)
		}
	}
}

// TestPriorityUnprivileged drops the credentials of one thread (Linux keeps
// them per thread; the raw syscall, unlike syscall.Setresuid, does not
// broadcast to every thread) to check that raising nice needs no privilege
// and that the refusals wrap ErrNotPermitted.
func TestPriorityUnprivileged(t *testing.T) {
	var limits [2]unix.Rlimit
	for i, r := range []int{unix.RLIMIT_NICE, unix.RLIMIT_RTPRIO} {
		if err := unix.Getrlimit(r, &limits[i]); err != nil {
			t.Fatal(err)
		}
	}
	if limits[0].Cur > 0 || limits[1].Cur > 0 {
		t.Skipf("RLIMIT_NICE %d, RLIMIT_RTPRIO %d let an unprivileged thread raise priority", limits[0].Cur, limits[1].Cur)
	}
	err := onThread(func() error {
		if os.Geteuid() == 0 {
			const nobody = 65534
			if _, _, errno := unix.RawSyscall(unix.SYS_SETRESUID, nobody, nobody, nobody); errno != 0 {
				return os.NewSyscallError("setresuid", errno)
			}
		}
		before, err := niceOf(unix.Gettid())
		if err != nil {
			return err
		}
		if before < 19 {
			if err := SetNice(before + 1); err != nil {
				t.Errorf("raising nice to %d unprivileged: %v", before+1, err)
			}
		}
		if err := SetNice(-20); !errors.Is(err, ErrNotPermitted) {
			t.Errorf("SetNice(-20) unprivileged: error %v, want ErrNotPermitted", err)
		} else {
			t.Log(err)
		}
		if err := SetFIFO(1); !errors.Is(err, ErrNotPermitted) {
			t.Errorf("SetFIFO(1) unprivileged: error %v, want ErrNotPermitted", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestSetFIFO(t *testing.T) {
	err := onThread(func() error {
		if err := SetFIFO(10); err != nil {
			return err
		}
		attr, err := unix.SchedGetAttr(0, 0)
		if err != nil {
			return err
		}
		if attr.Policy != unix.SCHED_FIFO || attr.Priority != 10 {
			t.Errorf("after SetFIFO(10), policy %d priority %d", attr.Policy, attr.Priority)
		}
		// Back to normal before anything else runs here; the thread is
		// discarded anyway when this goroutine exits locked.
		if err := unix.SchedSetAttr(0, &unix.SchedAttr{Policy: unix.SCHED_NORMAL}, 0); err != nil {
			return err
		}
		if attr, err := unix.SchedGetAttr(0, 0); err != nil || attr.Policy != unix.SCHED_NORMAL {
			t.Errorf("restoring SCHED_OTHER (SCHED_NORMAL): policy %v, %v", attr, err)
		}
		return nil
	})
	if errors.Is(err, ErrNotPermitted) {
		t.Skipf("SCHED_FIFO refused here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, prio := range []int{0, 100} {
		if err := SetFIFO(prio); err == nil {
			t.Errorf("SetFIFO(%d) succeeded", prio)
		}
	}
}
