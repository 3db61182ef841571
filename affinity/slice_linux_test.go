package affinity

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestSetThreadSlice sets a slice on a locked thread, reads it back from
// the kernel's own account of the thread (/proc/self/task/TID/sched, where
// the kernel prints it), keeps the thread's nice value, and puts the
// default back.
func TestSetThreadSlice(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	tid := unix.Gettid()
	if err := unix.Setpriority(unix.PRIO_PROCESS, tid, 3); err != nil {
		t.Fatal(err)
	}
	defer unix.Setpriority(unix.PRIO_PROCESS, tid, 0)
	got, err := SetThreadSlice(3 * time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	if got == 0 {
		t.Skip("this kernel keeps no custom slice (before Linux 6.12)")
	}
	if got != 3*time.Millisecond {
		t.Fatalf("slice read back %v, want 3ms", got)
	}
	if s, ok := procSlice(t, tid); ok && s != 3*time.Millisecond {
		t.Errorf("/proc says se.slice %v, want 3ms", s)
	}
	if prio, err := unix.Getpriority(unix.PRIO_PROCESS, tid); err != nil || 20-prio != 3 {
		t.Errorf("nice after SetThreadSlice: getpriority %d, %v; want nice 3 kept", prio, err)
	}
	if got, err := SetThreadSlice(0); err != nil || got == 3*time.Millisecond {
		t.Errorf("SetThreadSlice(0) = %v, %v; want the kernel's default back", got, err)
	}
}

func TestSetThreadSliceBounds(t *testing.T) {
	for _, d := range []time.Duration{time.Microsecond, MaxSlice + 1, -time.Millisecond} {
		if _, err := SetThreadSlice(d); err == nil || !strings.Contains(err.Error(), d.String()) {
			t.Errorf("SetThreadSlice(%v) = %v, want an error naming it", d, err)
		}
	}
}

// procSlice reads se.slice, in ns, from /proc/self/task/TID/sched, where
// the kernel has it (CONFIG_SCHED_DEBUG).
func procSlice(t *testing.T, tid int) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/self/task/" + strconv.Itoa(tid) + "/sched")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if name, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(name) == "se.slice" {
			ns, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				t.Fatalf("se.slice %q: %v", v, err)
			}
			return time.Duration(ns), true
		}
	}
	return 0, false
}
