// Package affinity places the threads and processes of a measurement on
// chosen CPUs and reports where they really ran. It parses CPU lists and
// placement specs ("client=0 relay=1", "spread"), pins threads with
// sched_setaffinity, starts child processes on a CPU set and in a process
// group of their own (hosts signals the group), reads a process's mask back, reads the CPU topology
// from sysfs so a report can say whether two threads shared a core, sets
// nice values on every thread of a process, sums the CPU time a process and
// its children have run (from /proc), reads what the kernel's per-CPU
// workqueue threads (kworker/N:M) ran, and sleeps in nanosleep(2) for
// pacing finer than the runtime's timers. Env, the environment a run ran
// in (kernel, CPU model, cores, GOMAXPROCS, Go version, pinning obtained),
// lives here so that relay, pingpong, hosts and the reports share one type.
// It imports golang.org/x/sys/unix and internal/list only.
package affinity
