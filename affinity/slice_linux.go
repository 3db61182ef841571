package affinity

import (
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// SetThreadSlice asks the kernel to give the calling thread time slices of
// d (EEVDF's custom slice: sched_setattr(2) with sched_runtime on a
// SCHED_OTHER or SCHED_BATCH thread), keeping its policy and nice value,
// and returns the slice the kernel then reports. A longer slice puts the
// thread's virtual deadline later, so that when it wakes it waits for the
// task running to block instead of preempting it; a task that has run past
// its share is still preempted. A kernel without custom slices (before
// 6.12) takes the call and reports 0; a thread under a real-time policy is
// left as it is, and SetThreadSlice says so. d of 0 returns the thread to
// the kernel's default slice, which is then what it reports. The caller
// locks its goroutine to its thread first (runtime.LockOSThread).
func SetThreadSlice(d time.Duration) (time.Duration, error) {
	if d != 0 && (d < MinSlice || d > MaxSlice) {
		return 0, fmt.Errorf("affinity: slice %v: want 0 (the kernel's default) or %v..%v", d, MinSlice, MaxSlice)
	}
	attr, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return 0, os.NewSyscallError("sched_getattr", err)
	}
	if attr.Policy != unix.SCHED_NORMAL && attr.Policy != unix.SCHED_BATCH {
		return 0, fmt.Errorf("affinity: slice %v: the thread runs under scheduling policy %d, not a fair one", d, attr.Policy)
	}
	attr.Runtime = uint64(d)
	// The flags ask for nothing beyond policy, nice and runtime: not
	// SCHED_FLAG_KEEP_PARAMS, which would also keep the old runtime.
	attr.Flags = 0
	if err := unix.SchedSetAttr(0, attr, 0); err != nil {
		return 0, os.NewSyscallError("sched_setattr", err)
	}
	got, err := unix.SchedGetAttr(0, 0)
	if err != nil {
		return 0, os.NewSyscallError("sched_getattr", err)
	}
	return time.Duration(got.Runtime), nil
}
