package affinity

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ProcessCPUTime is the CPU time process pid has run: each thread's from
// /proc/PID/task/TID/schedstat (the first field, nanoseconds on the CPU,
// kept whether or not schedstats are enabled), its reaped children's
// from cutime and cstime of /proc/PID/stat (USER_HZ ticks, proc(5)), and
// its live children's threads (socat runs every connection in a child).
// Unlike a relay's residence, which is wall time and on a shared CPU
// includes the time it was preempted by the very process it just woke,
// this is time the relay itself ran, its system calls included.
func ProcessCPUTime(pid int) (time.Duration, error) {
	own, err := tasksCPU(pid)
	if err != nil {
		return 0, err
	}
	stat, err := readStat(pid)
	if err != nil {
		return 0, err
	}
	// Fields after the command's closing parenthesis start at state (3):
	// cutime and cstime are fields 16 and 17.
	reaped := time.Duration(0)
	for _, i := range []int{16, 17} {
		v, err := strconv.ParseInt(stat[i-3], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("affinity: /proc/%d/stat field %d %q: %w", pid, i, stat[i-3], err)
		}
		reaped += time.Duration(v) * (time.Second / userHZ)
	}
	live := time.Duration(0)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return 0, fmt.Errorf("affinity: CPU of %d: %w", pid, err)
	}
	parent := strconv.Itoa(pid)
	for _, e := range ents {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := readStat(child)
		if err != nil || st[1] != parent { // ppid is field 4
			continue
		}
		if d, err := tasksCPU(child); err == nil {
			live += d
		}
	}
	return own + reaped + live, nil
}

// userHZ is the unit of /proc's tick counts, 100 on every Linux ABI.
const userHZ = 100

func tasksCPU(pid int) (time.Duration, error) {
	d, _, err := tasksSchedstat(pid)
	return d, err
}

// tasksSchedstat sums the schedstat of every thread of pid: the time on the
// CPU (field 1, nanoseconds) and the times a thread was switched in to run
// (field 3, "# of timeslices run on this cpu", proc(5)).
func tasksSchedstat(pid int) (time.Duration, int64, error) {
	dirs, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(dirs) == 0 {
		return 0, 0, fmt.Errorf("affinity: CPU of %d: no /proc/%d/task", pid, pid)
	}
	var sum time.Duration
	var runs int64
	for _, f := range dirs {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // a thread that exited since the listing
		}
		fields := strings.Fields(string(b))
		if len(fields) == 0 {
			continue
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("affinity: %s %q: %w", f, fields[0], err)
		}
		sum += time.Duration(ns)
		if len(fields) >= 3 {
			n, err := strconv.ParseInt(fields[2], 10, 64)
			if err != nil {
				return 0, 0, fmt.Errorf("affinity: %s %q: %w", f, fields[2], err)
			}
			runs += n
		}
	}
	return sum, runs, nil
}

// readStat returns /proc/PID/stat's fields after the command, which may
// hold spaces and parentheses: [0] is the state (field 3).
func readStat(pid int) ([]string, error) {
	_, f, err := readStatComm(pid)
	return f, err
}

// readStatComm returns /proc/PID/stat's command (field 2, without its
// parentheses) and the fields after it, as readStat does.
func readStatComm(pid int) (string, []string, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	j := strings.IndexByte(s, '(')
	if i < 0 || j < 0 || j > i {
		return "", nil, fmt.Errorf("affinity: /proc/%d/stat: no command", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 15 {
		return "", nil, fmt.Errorf("affinity: /proc/%d/stat: %d fields", pid, len(f)+2)
	}
	return s[j+1 : i], f, nil
}

// ProcessName is process pid's command name, as /proc/PID/stat gives it
// (the executable's name, cut to 15 bytes: TASK_COMM_LEN).
func ProcessName(pid int) (string, error) {
	comm, _, err := readStatComm(pid)
	if err != nil {
		return "", fmt.Errorf("affinity: name of process %d: %w", pid, err)
	}
	return comm, nil
}

// ProcessClock is the CPU time process pid's threads have run, those that
// exited included, to the nanosecond: its CPU-time clock
// (clock_getcpuclockid(3); CPUCLOCK_SCHED, the sum of the threads'
// sum_exec_runtime and of the dead ones' kept in its signal struct,
// thread_group_cputime, kernel/sched/cputime.c), which the kernel lets any
// process read (lookup_task, kernel/time/posix-cpu-timers.c). Unlike
// ProcessCPUTime it leaves children out, and unlike summing the live
// threads' schedstat it keeps what a thread ran before it exited: a
// responder whose connection threads are locked to their goroutines ends
// them with each connection.
func ProcessClock(pid int) (time.Duration, error) {
	// The clock id of a process is its PID, complemented, shifted past
	// the clock type and the per-thread bit (CPUCLOCK_PERTHREAD_MASK 4),
	// or'ed with the type: MAKE_PROCESS_CPUCLOCK, include/linux/posix-timers_types.h.
	const cpuclockSched = 2
	if pid <= 0 || pid > 1<<28 { // past PID_MAX_LIMIT (1<<22), and the shift would overflow
		return 0, fmt.Errorf("affinity: CPU clock of %d: %w", pid, unix.ESRCH)
	}
	id := int32(^pid)<<3 | cpuclockSched
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0, fmt.Errorf("affinity: CPU clock of %d: %w", pid, err)
	}
	return time.Duration(ts.Nano()), nil
}
