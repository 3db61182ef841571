package affinity

import (
	"errors"
	"fmt"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// SetNice sets the nice value (-20 to 19) of the calling thread. On Linux
// nice is per thread: setpriority(PRIO_PROCESS, tid) changes only that
// thread (setpriority(2), BUGS). Like PinThread it locks the goroutine to
// the thread for good. Raising nice needs no privilege; lowering it below
// the current value needs CAP_SYS_NICE or RLIMIT_NICE.
func SetNice(n int) error {
	if n < -20 || n > 19 {
		return fmt.Errorf("affinity: set nice %d: outside -20..19", n)
	}
	runtime.LockOSThread()
	tid := unix.Gettid()
	if err := unix.Setpriority(unix.PRIO_PROCESS, tid, n); err != nil {
		runtime.UnlockOSThread()
		return priorityError(fmt.Sprintf("set nice %d on thread %d", n, tid),
			os.NewSyscallError("setpriority", err), "lowering nice needs CAP_SYS_NICE or RLIMIT_NICE")
	}
	return nil
}

// SetFIFO moves the calling thread to SCHED_FIFO at priority prio (1 to
// 99), through sched_setattr(2), the superset of sched_setscheduler(2) that
// x/sys/unix wraps. Like PinThread it locks the goroutine to the thread for
// good. A FIFO thread that never blocks starves normal threads on its CPU;
// RT throttling (kernel.sched_rt_runtime_us, 0.95 s of each second by
// default) is the only backstop.
func SetFIFO(prio int) error {
	if prio < 1 || prio > 99 {
		return fmt.Errorf("affinity: set SCHED_FIFO %d: outside 1..99", prio)
	}
	runtime.LockOSThread()
	attr := unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: uint32(prio)}
	if err := unix.SchedSetAttr(0, &attr, 0); err != nil {
		runtime.UnlockOSThread()
		return priorityError(fmt.Sprintf("set SCHED_FIFO %d on thread %d", prio, unix.Gettid()),
			os.NewSyscallError("sched_setattr", err),
			"needs CAP_SYS_NICE or RLIMIT_RTPRIO, and under cgroup v1 a cpu.rt_runtime_us above 0")
	}
	return nil
}

func priorityError(op string, err error, hint string) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("affinity: %s: %w: %s (%w)", op, ErrNotPermitted, hint, err)
	}
	return fmt.Errorf("affinity: %s: %w", op, err)
}
