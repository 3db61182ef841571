package hosts

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
)

// TerminateGroup and KillGroup reach what the leader forked: a shell's
// background child dies with it.
func TestSignalGroup(t *testing.T) {
	for name, signal := range map[string]func(int) error{"terminate": TerminateGroup, "kill": KillGroup} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command("sh", "-c", "sleep 600 & echo $!; wait")
			affinity.NewGroup(cmd)
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(stdout).ReadString('\n')
			if err != nil {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("shell printed %q, %v", line, err)
			}
			child, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatal(err)
			}
			if err := signal(cmd.Process.Pid); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil {
				t.Error("shell exited 0 after the group signal")
			}
			// The background child is not this process's to wait for: its
			// /proc entry says when it has exited (a zombie, or gone once
			// its new parent reaped it). Poll the kernel, bounded.
			deadline := time.Now().Add(10 * time.Second)
			for running(child) {
				if time.Now().After(deadline) {
					t.Fatalf("background child %d still running 10s after the group signal", child)
				}
				runtime.Gosched()
			}
		})
	}
	if err := TerminateGroup(0); err == nil {
		t.Error("TerminateGroup(0) succeeded")
	}
}

// running reports whether pid exists and has not exited (/proc/PID/stat's
// state is not Z, proc(5)).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
