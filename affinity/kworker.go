package affinity

import (
	"strconv"
	"strings"
	"time"
)

// Kworkers is one reading of the CPU time the kernel's per-CPU workqueue
// threads (kworker/N:M, bound to CPU N) have run, thread by thread. Work a
// kernel function queues on the system workqueue from a CPU runs in one of
// that CPU's workers (queue_work, kernel/workqueue.c): so, for one, does
// the per-message work of a sockmap redirect (sk_psock_backlog,
// net/core/skmsg.c), which no user process is charged for. The zero value
// is a reading that found no worker.
type Kworkers struct {
	ran map[kworker]kworkerUse
}

// kworkerUse is a worker's time on the CPU and the times it was switched
// in to run (schedstat's first and third fields).
type kworkerUse struct {
	cpu  time.Duration
	runs int64
}

// kworker names one worker thread: its PID, and its start time, which
// tells a worker from a later one given the same PID.
type kworker struct {
	pid   int
	start string // /proc/PID/stat field 22, clock ticks since boot
}

// Since is the CPU time the workers of k ran after base was read, and the
// times they were switched in to run: a worker in both readings counts its
// growth; one that appeared since counts from 0, as the kernel starts its
// sums at 0 when it creates the thread. A worker that exited since base
// loses what it ran between base and its exit: a pool destroys only a
// worker that has idled IDLE_WORKER_TIMEOUT (300 s, kernel/workqueue.c),
// so between two readings a round apart that is nothing.
func (k Kworkers) Since(base Kworkers) (cpu time.Duration, runs int64) {
	for w, u := range k.ran {
		if b, ok := base.ran[w]; ok && b.cpu <= u.cpu && b.runs <= u.runs {
			u.cpu -= b.cpu
			u.runs -= b.runs
		}
		cpu += u.cpu
		runs += u.runs
	}
	return cpu, runs
}

// Threads is the number of workers the reading found.
func (k Kworkers) Threads() int { return len(k.ran) }

// kworkerCPU returns N of a bound worker's command "kworker/N:M[H][-wq]".
func kworkerCPU(comm string) (int, bool) {
	rest, ok := strings.CutPrefix(comm, "kworker/")
	if !ok {
		return 0, false
	}
	n, _, ok := strings.Cut(rest, ":")
	if !ok {
		return 0, false
	}
	cpu, err := strconv.Atoi(n)
	if err != nil || cpu < 0 || n[0] == '+' || n[0] == '-' {
		return 0, false
	}
	return cpu, true
}

// PIDs are the workers the reading found, by thread id.
func (k Kworkers) PIDs() []int {
	out := make([]int, 0, len(k.ran))
	for w := range k.ran {
		out = append(out, w.pid)
	}
	return out
}
