package affinity

import "time"

// GroupCPU is one reading of a process's CPU time, two ways. Live sums
// its live threads' schedstat (nanoseconds): exact, but a thread that
// exits takes its time with it. Group is utime+stime of /proc/PID/stat,
// the whole thread group's, exited threads included (the kernel adds a
// dying thread's sum_exec_runtime to its signal struct, __exit_signal,
// kernel/exit.c), and since Linux 4.x scaled so that the two add up to
// that runtime (cputime_adjust, kernel/sched/cputime.c), but in USER_HZ
// ticks of 10 ms.
type GroupCPU struct {
	Live  time.Duration
	Group time.Duration
}

// lostSlack is how far Group may run ahead of Live between two readings
// from rounding alone: each reading of Group is truncated to a tick.
const lostSlack = 2 * time.Second / userHZ

// Since is the CPU time the process ran after base was read: Live's
// growth, unless Group's outgrew it by more than its rounding, which
// means a thread exited in between with time Live lost; then Group's
// growth, and lost says so.
func (g GroupCPU) Since(base GroupCPU) (d time.Duration, lost bool) {
	live, group := g.Live-base.Live, g.Group-base.Group
	if group-live > lostSlack {
		return group, true
	}
	return live, false
}
