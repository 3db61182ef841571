package affinity

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// startChild starts the test binary as a child (see TestMain) on cpus and
// waits for its threads; the child exits when the test ends.
func startChild(t *testing.T, cpus CPUSet) *exec.Cmd {
	t.Helper()
	return startChildWith(t, func(cmd *exec.Cmd) error { return StartOn(cmd, cpus) })
}

// startChildWith is startChild with the function that starts the child.
func startChildWith(t *testing.T, start func(*exec.Cmd) error) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	// GORACE: a -race binary otherwise sleeps a second at exit.
	cmd.Env = append(os.Environ(), childEnv+"=1", "GORACE=atexit_sleep_ms=0")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := start(cmd); err != nil {
		if errors.Is(err, unix.EPERM) {
			t.Skipf("start refused here: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("child: %v", err)
		}
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ready\n" {
		t.Fatalf("child said %q, %v; want ready", line, err)
	}
	go io.Copy(io.Discard, stdout) // until the child exits
	return cmd
}

// threadsOf lists a child's threads: at least the parked ones, the main
// thread and the runtime's.
func threadsOf(t *testing.T, pid int) []int {
	t.Helper()
	tids, err := threadIDs(pid)
	if err != nil {
		t.Fatal(err)
	}
	if len(tids) < childThreads+1 {
		t.Fatalf("child %d has %d threads, want at least %d", pid, len(tids), childThreads+1)
	}
	return tids
}

// threadMasks reads the mask of every thread of this process. They differ:
// tests pin threads, and the main thread, which the runtime parks rather
// than ends when a locked goroutine exits on it, keeps its pinning.
func threadMasks(t *testing.T) map[int]CPUSet {
	t.Helper()
	tids, err := threadIDs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	masks := make(map[int]CPUSet, len(tids))
	for _, tid := range tids {
		cpus, err := getAffinity(tid)
		if errors.Is(err, unix.ESRCH) {
			continue // exited since the listing
		}
		if err != nil {
			t.Fatalf("thread %d: %v", tid, err)
		}
		masks[tid] = cpus
	}
	return masks
}

// A child started on a CPU set runs there with every thread, as
// sched_getaffinity reads them, and the parent keeps its mask.
func TestStartOn(t *testing.T) {
	allowed := allowedCPUs(t)
	before := threadMasks(t)
	for _, cpu := range []int{allowed.cpus[1], allowed.cpus[0]} {
		want := NewCPUSet(cpu)
		cmd := startChild(t, want)
		got, err := ProcessCPUs(cmd.Process.Pid)
		if err != nil || !got.Equal(want) {
			t.Errorf("child started on %s: ProcessCPUs %s, %v", want, got, err)
		}
		for _, tid := range threadsOf(t, cmd.Process.Pid) {
			if got, err := getAffinity(tid); err != nil || !got.Equal(want) {
				t.Errorf("child started on %s: thread %d may use %s, %v", want, tid, got, err)
			}
		}
	}
	for tid, got := range threadMasks(t) {
		if want, ok := before[tid]; ok && !got.Equal(want) {
			t.Errorf("parent thread %d may use %s after StartOn; before, %s", tid, got, want)
		}
	}
	cmd := exec.Command("true")
	if err := StartOn(cmd, NewCPUSet(1<<20)); !errors.Is(err, ErrNotOnline) {
		t.Errorf("StartOn(CPU 1<<20) error %v, want ErrNotOnline", err)
	}
	if cmd.Process != nil {
		t.Error("StartOn on an offline CPU started the process")
	}
}

// ProcessCPUs agrees with the kernel's own account in /proc/PID/status.
func TestProcessCPUs(t *testing.T) {
	cmd := startChild(t, CPUSet{})
	status, err := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ProcessCPUs(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Cpus_allowed_list:\t" + got.String() + "\n"; !strings.Contains(string(status), want) {
		t.Errorf("ProcessCPUs %s; /proc status has no line %q", got, want)
	}
	if _, err := ProcessCPUs(1 << 30); !errors.Is(err, unix.ESRCH) {
		t.Errorf("ProcessCPUs of no process: %v, want ESRCH", err)
	}
}

// niceOf reads a thread's nice value. The raw getpriority(2) syscall
// returns 20-nice so that it is never negative; glibc undoes that, x/sys
// does not.
func niceOf(tid int) (int, error) {
	p, err := unix.Getpriority(unix.PRIO_PROCESS, tid)
	return 20 - p, err
}

// SetNice reaches every thread of the process, not only the one whose id
// is the pid, and leaves the caller alone.
func TestSetNice(t *testing.T) {
	cmd := startChild(t, CPUSet{})
	pid := cmd.Process.Pid
	before, err := niceOf(pid)
	if err != nil {
		t.Fatal(err)
	}
	ours, err := niceOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want := min(before+5, 19)
	if err := SetNice(pid, want); err != nil {
		t.Fatal(err)
	}
	for _, tid := range threadsOf(t, pid) {
		if got, err := niceOf(tid); err != nil || got != want {
			t.Errorf("after SetNice(%d, %d), thread %d nice is %d, %v", pid, want, tid, got, err)
		}
	}
	if got, err := niceOf(os.Getpid()); err != nil || got != ours {
		t.Errorf("after SetNice on a child, our nice is %d, %v; want %d", got, err, ours)
	}
	for _, n := range []int{-21, 20} {
		if err := SetNice(pid, n); err == nil {
			t.Errorf("SetNice(%d) succeeded", n)
		}
	}
	if err := SetNice(1<<30, 1); err == nil {
		t.Error("SetNice on no process succeeded")
	}
}

// StartLocked gives the child its CPUs and nice value from its first
// instruction, so every thread it creates has both; the forking thread
// keeps them and ends with its goroutine, and no other thread of ours
// changes.
func TestStartLocked(t *testing.T) {
	allowed := allowedCPUs(t)
	ours, err := niceOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	want, cpus := min(ours+3, 19), NewCPUSet(allowed.cpus[0])
	before := threadNices(t)
	done := make(chan struct{})
	var forker int // the thread that forked: it keeps the nice value
	cmd := startChildWith(t, func(c *exec.Cmd) error {
		errc := make(chan error, 1)
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			forker = unix.Gettid()
			errc <- StartLocked(c, cpus, want)
			<-done
		}()
		return <-errc
	})
	t.Cleanup(func() { close(done) })
	for _, tid := range threadsOf(t, cmd.Process.Pid) {
		if got, err := niceOf(tid); err != nil || got != want {
			t.Errorf("child thread %d nice %d, %v; want %d", tid, got, err, want)
		}
		if got, err := getAffinity(tid); err != nil || !got.Equal(cpus) {
			t.Errorf("child thread %d may use %s, %v; want %s", tid, got, err, cpus)
		}
	}
	// Every thread of ours but the forking one keeps its nice value (the
	// forking goroutine may have run on the main thread).
	for tid, got := range threadNices(t) {
		if was, ok := before[tid]; ok && tid != forker && got != was {
			t.Errorf("after StartLocked our thread %d's nice is %d; before, %d", tid, got, was)
		}
	}
	if err := StartLocked(exec.Command("true"), CPUSet{}, 20); err == nil {
		t.Error("StartLocked with nice 20 succeeded")
	}
}

// TestPriorityUnprivileged checks, on a child and a thread of ours that
// both run as an unprivileged user, that raising nice needs no privilege
// and that lowering it is refused with ErrNotPermitted. Linux keeps
// credentials per thread; the raw setresuid syscall, unlike
// syscall.Setresuid, does not broadcast to every thread.
func TestPriorityUnprivileged(t *testing.T) {
	var limit unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NICE, &limit); err != nil {
		t.Fatal(err)
	}
	if limit.Cur > 0 {
		t.Skipf("RLIMIT_NICE %d lets an unprivileged thread lower nice", limit.Cur)
	}
	const nobody = 65534
	cmd := exec.Command("sleep", "600")
	if os.Geteuid() == 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	}
	if err := StartOn(cmd, CPUSet{}); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	pid := cmd.Process.Pid
	err := onThread(func() error {
		if os.Geteuid() == 0 {
			if _, _, errno := unix.RawSyscall(unix.SYS_SETRESUID, nobody, nobody, nobody); errno != 0 {
				return os.NewSyscallError("setresuid", errno)
			}
		}
		before, err := niceOf(pid)
		if err != nil {
			return err
		}
		if before < 19 {
			if err := SetNice(pid, before+1); err != nil {
				t.Errorf("raising nice to %d unprivileged: %v", before+1, err)
			}
		}
		if err := SetNice(pid, -20); !errors.Is(err, ErrNotPermitted) {
			t.Errorf("SetNice(-20) unprivileged: error %v, want ErrNotPermitted", err)
		} else {
			t.Log(err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Nanosleep sleeps at least d and allocates nothing, so that the open-loop
// pacer may call it per request.
func TestNanosleep(t *testing.T) {
	const d = 200 * time.Microsecond
	t0 := time.Now()
	if err := Nanosleep(d); err != nil {
		t.Fatal(err)
	}
	// A lower bound: nanosleep(2) never returns early, on any machine.
	if got := time.Since(t0); got < d {
		t.Errorf("Nanosleep(%v) returned after %v", d, got)
	}
	if allocs := testing.AllocsPerRun(100, func() { Nanosleep(time.Microsecond) }); allocs != 0 {
		t.Errorf("Nanosleep allocates %v times a call", allocs)
	}
}

// PinProcess moves a running process's threads, all of them, and hands
// back the mask it had so that it can be put back.
func TestPinProcess(t *testing.T) {
	allowed := allowedCPUs(t)
	cmd := startChild(t, CPUSet{})
	pid := cmd.Process.Pid
	orig, err := ProcessCPUs(pid)
	if err != nil {
		t.Fatal(err)
	}
	want := NewCPUSet(allowed.cpus[1])
	prev, err := PinProcess(pid, want)
	if err != nil {
		t.Fatal(err)
	}
	if !prev.Equal(orig) {
		t.Errorf("PinProcess returned %s as the old mask, want %s", prev, orig)
	}
	for _, tid := range threadsOf(t, pid) {
		if got, err := getAffinity(tid); err != nil || !got.Equal(want) {
			t.Errorf("after PinProcess(%s) thread %d may use %s, %v", want, tid, got, err)
		}
	}
	if _, err := PinProcess(pid, prev); err != nil {
		t.Fatal(err)
	}
	if got, _ := ProcessCPUs(pid); !got.Equal(orig) {
		t.Errorf("after putting the mask back: %s, want %s", got, orig)
	}
	if _, err := PinProcess(pid, NewCPUSet(1<<20)); !errors.Is(err, ErrNotOnline) {
		t.Errorf("PinProcess(CPU 1<<20) error %v, want ErrNotOnline", err)
	}
}

// Children finds a process's children.
func TestChildren(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	deadline := time.Now().Add(5 * time.Second)
	for {
		kids, err := Children(cmd.Process.Pid)
		if err != nil {
			t.Fatal(err)
		}
		if len(kids) == 1 {
			// Just forked, the child may still be sh: its parent tells.
			f, err := readStat(kids[0])
			if err != nil || f[1] != strconv.Itoa(cmd.Process.Pid) {
				t.Errorf("child %d: stat %v, %v; want parent %d", kids[0], f, err, cmd.Process.Pid)
			}
			syscall.Kill(kids[0], syscall.SIGKILL)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("sh has children %v, want its sleep", kids)
		}
		runtime.Gosched() // the shell forks as it starts: poll the kernel's list, bounded
	}
}

// threadNices reads the nice value of every thread of this process.
func threadNices(t *testing.T) map[int]int {
	t.Helper()
	tids, err := threadIDs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	nices := make(map[int]int, len(tids))
	for _, tid := range tids {
		if n, err := niceOf(tid); err == nil {
			nices[tid] = n
		}
	}
	return nices
}
