package affinity

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// startOn is StartOn with a CPU set: the fork runs on a thread pinned for
// the occasion, whose mask is then restored.
func startOn(cmd *exec.Cmd, cpus CPUSet) error {
	if err := checkOnline(cpus); err != nil {
		return fmt.Errorf("affinity: start %s on %s: %w", cmd.Path, cpus, err)
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := getAffinity(0)
		if err == nil {
			err = setAffinity(0, cpus)
		}
		if err != nil {
			runtime.UnlockOSThread() // the mask is as it was
			errc <- fmt.Errorf("affinity: start %s on %s: %w", cmd.Path, cpus, err)
			return
		}
		startErr := cmd.Start()
		if err := setAffinity(0, orig); err != nil {
			// Stay locked: the runtime ends the thread with this goroutine.
			errc <- fmt.Errorf("affinity: restore thread CPUs %s after starting %s: %w", orig, cmd.Path, err)
			return
		}
		runtime.UnlockOSThread()
		errc <- startErr
	}()
	return <-errc
}

// startLocked is StartLocked with a CPU set or a nice value to set.
func startLocked(cmd *exec.Cmd, cpus CPUSet, nice int) error {
	if nice < -20 || nice > 19 {
		return fmt.Errorf("affinity: start %s with nice %d: outside -20..19", cmd.Path, nice)
	}
	if cpus.Len() > 0 {
		if err := checkOnline(cpus); err != nil {
			return fmt.Errorf("affinity: start %s on %s: %w", cmd.Path, cpus, err)
		}
		if err := setAffinity(0, cpus); err != nil {
			return fmt.Errorf("affinity: start %s on %s: %w", cmd.Path, cpus, err)
		}
	}
	if nice != 0 {
		// who 0 is the calling thread: on Linux PRIO_PROCESS names a thread.
		if err := unix.Setpriority(unix.PRIO_PROCESS, 0, nice); err != nil {
			return priorityError(fmt.Sprintf("start %s with nice %d", cmd.Path, nice),
				os.NewSyscallError("setpriority", err), "lowering nice needs CAP_SYS_NICE or RLIMIT_NICE")
		}
	}
	return cmd.Start()
}

// NewGroup makes cmd, once started, the leader of a process group of its
// own (setpgid(2)), so that hosts.TerminateGroup and KillGroup reach it and
// everything it forks, and a terminal's Ctrl-C reaches only the parent. It
// also asks the kernel to send the child SIGTERM when the thread that
// forked it exits (prctl(2), PR_SET_PDEATHSIG): a parent killed outright
// does not leave its children running. NewGroup replaces cmd.SysProcAttr.
func NewGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

// ProcessCPUs returns the CPUs process pid may run on: the mask of its main
// thread, whose thread id is pid, read with sched_getaffinity(2). It is
// what /proc/PID/status reports as Cpus_allowed_list (proc(5)), and what a
// placement actually obtained, whoever applied it; the kernel drops CPUs
// the process's cpuset forbids.
func ProcessCPUs(pid int) (CPUSet, error) {
	cpus, err := getAffinity(pid)
	if err != nil {
		return CPUSet{}, fmt.Errorf("affinity: CPUs of process %d: %w", pid, err)
	}
	return cpus, nil
}

// PinProcess sets the CPUs of every thread of a running process pid, one
// hopbench did not start (a database named by --backend): its threads
// created later inherit the mask of the thread that creates them. It
// returns the mask the main thread had, for the caller to put back with
// PinProcess again when the run ends.
func PinProcess(pid int, cpus CPUSet) (prev CPUSet, err error) {
	if err := checkOnline(cpus); err != nil {
		return CPUSet{}, fmt.Errorf("affinity: pin process %d on %s: %w", pid, cpus, err)
	}
	if prev, err = getAffinity(pid); err != nil {
		return CPUSet{}, fmt.Errorf("affinity: pin process %d on %s: %w", pid, cpus, err)
	}
	if err := eachThread(pid, func(tid int) error { return setAffinity(tid, cpus) }); err != nil {
		return prev, fmt.Errorf("affinity: pin process %d on %s: %w", pid, cpus, err)
	}
	return prev, nil
}

// SetNice sets the nice value (-20 to 19) of every thread of process pid.
// On Linux nice is per thread: setpriority(PRIO_PROCESS, id) changes only
// the thread whose id it is (setpriority(2), BUGS), so SetNice sets each
// thread listed in /proc/PID/task. Threads created later inherit the value
// of the thread that creates them. Raising nice needs only that the caller
// own the process; lowering it below the current value needs CAP_SYS_NICE
// or RLIMIT_NICE.
func SetNice(pid, n int) error {
	if n < -20 || n > 19 {
		return fmt.Errorf("affinity: set nice %d on process %d: outside -20..19", n, pid)
	}
	set := func(tid int) error {
		return os.NewSyscallError("setpriority", unix.Setpriority(unix.PRIO_PROCESS, tid, n))
	}
	// A thread whose clone(2) was under way during the last listing, from
	// a thread not yet set, shows up after it with the old value (a busy
	// machine widens that window): each pass checks every thread and sets
	// those that differ, until a pass finds none.
	for pass := 0; ; pass++ {
		wrong := 0
		err := eachThread(pid, func(tid int) error {
			// getpriority(2) returns 20-nice, the kernel's form.
			if prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid); err == nil && 20-prio == n {
				return nil
			}
			wrong++
			return set(tid)
		})
		if err != nil {
			return priorityError(fmt.Sprintf("set nice %d on process %d", n, pid), err,
				"lowering nice needs CAP_SYS_NICE or RLIMIT_NICE")
		}
		if wrong == 0 || pass == 9 {
			return nil
		}
	}
}

// eachThread calls fn for every thread of process pid, and lists them
// again until no new thread shows up: a thread cloned meanwhile by a thread
// not yet visited inherits the old setting. A thread that exits before its
// turn is skipped.
func eachThread(pid int, fn func(tid int) error) error {
	done := make(map[int]bool)
	for {
		tids, err := threadIDs(pid)
		if err != nil {
			return err
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			fresh++
			done[tid] = true
			err := fn(tid)
			if errors.Is(err, unix.ESRCH) {
				continue // exited since the listing
			}
			if err != nil {
				return fmt.Errorf("thread %d: %w", tid, err)
			}
		}
		if fresh == 0 {
			return nil
		}
	}
}

// threadIDs lists the threads of process pid (/proc/PID/task, proc(5)).
func threadIDs(pid int) ([]int, error) {
	entries, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return nil, err
	}
	tids := make([]int, 0, len(entries))
	for _, e := range entries {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// Nanosleep sleeps d in nanosleep(2), late by the thread's timer slack only
// (prctl(2), PR_SET_TIMERSLACK), where the runtime's timers wait in
// epoll_wait with a millisecond timeout. The goroutine holds its thread
// meanwhile, as a blocking read does; the runtime hands the P to another
// thread if the sleep lasts. It does not allocate, and returns an error
// only where nanosleep is unsupported.
func Nanosleep(d time.Duration) error {
	ts := unix.NsecToTimespec(int64(d))
	for unix.Nanosleep(&ts, &ts) == unix.EINTR {
	}
	return nil
}

func priorityError(op string, err error, hint string) error {
	if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
		return fmt.Errorf("affinity: %s: %w: %s (%w)", op, ErrNotPermitted, hint, err)
	}
	return fmt.Errorf("affinity: %s: %w", op, err)
}

// Children lists the processes whose parent is pid: the children of each
// of its threads (/proc/PID/task/TID/children, proc(5)), as a forking
// server such as socat makes one per connection.
func Children(pid int) ([]int, error) {
	tids, err := threadIDs(pid)
	if err != nil {
		return nil, fmt.Errorf("affinity: children of process %d: %w", pid, err)
	}
	var out []int
	for _, tid := range tids {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + strconv.Itoa(tid) + "/children")
		if err != nil {
			continue // exited since the listing
		}
		for _, f := range strings.Fields(string(b)) {
			if c, err := strconv.Atoi(f); err == nil {
				out = append(out, c)
			}
		}
	}
	return out, nil
}
