package affinity

import (
	"fmt"
	"os"
	"strconv"
)

// ReadKworkers reads the CPU time run so far by every per-CPU workqueue
// thread bound to one of cpus: a kernel thread (parent kthreadd, PID 2)
// whose command is "kworker/N:M", N a CPU of cpus, with or without the "H"
// of a high-priority pool and the "-workqueue" the kernel appends while the
// worker runs or last ran an item (wq_worker_comm). Unbound workers
// (kworker/uN:M) and rescuers (kworker/R-name) are not bound to a CPU and
// are skipped. Each worker's time is the first field of its schedstat,
// nanoseconds on the CPU (proc(5)), readable by anyone. Without
// CONFIG_IRQ_TIME_ACCOUNTING that includes the softirqs the worker ran on
// its way (loopback's receive path after a send); with it the kernel
// charges them to no task.
//
// It lists /proc: a few hundred small reads, to be done between timed
// windows, never inside one. It fails when /proc shows no such worker, as
// in a PID namespace that hides the kernel's threads.
func ReadKworkers(cpus CPUSet) (Kworkers, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return Kworkers{}, fmt.Errorf("affinity: read kworkers of CPUs %s: %w", cpus, err)
	}
	k := Kworkers{ran: map[kworker]kworkerUse{}}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		comm, st, err := readStatComm(pid)
		if err != nil || st[1] != "2" || len(st) < 20 { // ppid is field 4, starttime field 22
			continue // not a kernel thread, or one that exited since the listing
		}
		cpu, ok := kworkerCPU(comm)
		if !ok || !cpus.Contains(cpu) {
			continue
		}
		d, runs, err := tasksSchedstat(pid)
		if err != nil {
			continue // exited since its stat was read
		}
		k.ran[kworker{pid: pid, start: st[19]}] = kworkerUse{cpu: d, runs: runs}
	}
	if len(k.ran) == 0 {
		return Kworkers{}, fmt.Errorf("affinity: read kworkers of CPUs %s: no kworker/N thread of them in /proc", cpus)
	}
	return k, nil
}
