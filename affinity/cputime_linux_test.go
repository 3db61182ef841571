package affinity

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A child that burns CPU shows in its parent's figure, live and reaped.
func TestProcessCPUTimeCountsChildren(t *testing.T) {
	sh := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	before, err := ProcessCPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Run(); err != nil {
		t.Fatal(err)
	}
	after, err := ProcessCPUTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// Reaped children count in USER_HZ ticks (10 ms), rounded down, so
	// the child must spend more than a tick to show; 200,000 turns of a
	// shell loop take hundreds of ms of CPU, an order of magnitude above
	// the tick on the fastest machine. Half of what it spent leaves room
	// for the two fields' rounding and holds on any machine.
	if spent := sh.ProcessState.UserTime() + sh.ProcessState.SystemTime(); after-before < spent/2 || spent < 10*time.Millisecond {
		t.Errorf("child ran %v; the parent's CPU grew %v", spent, after-before)
	}
	if _, err := ProcessCPUTime(1 << 30); err == nil {
		t.Error("a process that does not exist has a CPU time")
	}
}

// A thread that burns CPU and exits leaves its time in the process's
// clock.
func TestProcessClockKeepsExitedThreads(t *testing.T) {
	pid := os.Getpid()
	before, err := ProcessClock(pid)
	if err != nil {
		t.Fatal(err)
	}
	type burn struct {
		tid int
		cpu time.Duration
	}
	done := make(chan burn)
	release := make(chan struct{})
	defer close(release)
	var b burn
	for b.tid == 0 {
		go func() {
			// Locked and never unlocked, the thread exits with the
			// goroutine -- unless it is the main thread, which the
			// runtime keeps: that one is held, so the next goroutine
			// gets another thread, and let go at the end.
			runtime.LockOSThread()
			if unix.Gettid() == pid {
				done <- burn{}
				<-release
				runtime.UnlockOSThread()
				return
			}
			start := threadCPU()
			for threadCPU()-start < 100*time.Millisecond {
			}
			done <- burn{tid: unix.Gettid(), cpu: threadCPU() - start}
		}()
		b = <-done
	}
	task := fmt.Sprintf("/proc/%d/task/%d", pid, b.tid)
	// A bound on a wait, not a figure: an exiting thread leaves /proc
	// within a scheduler slice; 5 s says it never will.
	for deadline := time.Now().Add(5 * time.Second); ; runtime.Gosched() {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d still there after its goroutine returned", b.tid)
		}
	}
	after, err := ProcessClock(pid)
	if err != nil {
		t.Fatal(err)
	}
	// Exact accounting, not speed: the thread's own clock read b.cpu,
	// and the process clock keeps it after the thread has gone.
	if after-before < b.cpu {
		t.Errorf("a thread burnt %v and exited; the process clock grew %v", b.cpu, after-before)
	}
	// Past the kernel's PID_MAX_LIMIT, 1<<22: no such process.
	if _, err := ProcessClock(1<<22 + 1); err == nil {
		t.Error("a process that does not exist has a CPU clock")
	}
}

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}
