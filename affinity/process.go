package affinity

import "os/exec"

// StartOn starts cmd (exec.Cmd.Start) with its CPU mask set to cpus from
// its first instruction; an empty set starts it unrestricted. A child
// inherits the CPU mask of the thread that forks it (sched_setaffinity(2)),
// so the fork runs on a thread pinned for the occasion: this pins programs
// that take no CPU flag of their own the same way as hoplat's binaries, and
// pins every thread the child will create. The calling process's threads
// keep their masks.
//
// The forking thread's own mask is restored before it goes back to the
// runtime: a thread left narrowed would run other goroutines on those CPUs,
// and a thread left to exit would fire the child's Pdeathsig, which the
// kernel ties to the forking thread, not the process (prctl(2),
// PR_SET_PDEATHSIG). If the mask cannot be restored the thread does exit,
// and the error says so: the child then gets its Pdeathsig, if it set one.
//
// Elsewhere than on Linux a CPU set is refused (errors.ErrUnsupported).
func StartOn(cmd *exec.Cmd, cpus CPUSet) error {
	if cpus.Len() == 0 {
		return cmd.Start()
	}
	return startOn(cmd, cpus)
}

// StartLocked starts cmd (exec.Cmd.Start) from the calling goroutine's OS
// thread with that thread's CPU mask set to cpus (an empty set leaves it)
// and its nice value set to nice (0 leaves it), so that the child and every
// thread it will create have both from its first instruction: a child
// inherits the mask and the nice value of the thread that forks it
// (sched_setaffinity(2), setpriority(2)). Setting nice after the start
// races with the threads the child creates meanwhile, which keep the old
// value.
//
// The caller must have locked the thread (runtime.LockOSThread) and must
// keep it locked until it has waited for cmd, then let the thread end with
// its goroutine: the thread keeps the mask and the nice value (lowering nice
// back needs CAP_SYS_NICE), and the kernel ties the child's Pdeathsig to it
// (prctl(2), PR_SET_PDEATHSIG), so it must live exactly as long as the
// child.
//
// Elsewhere than on Linux a CPU set or a nice value is refused
// (errors.ErrUnsupported).
func StartLocked(cmd *exec.Cmd, cpus CPUSet, nice int) error {
	if cpus.Len() == 0 && nice == 0 {
		return cmd.Start()
	}
	return startLocked(cmd, cpus, nice)
}
