package hosts

import (
	"fmt"
	"os"
	"syscall"
)

// TerminateGroup sends SIGTERM to the process group that pid leads (kill(2)
// with -pid), or to pid alone if that fails: pid did not start its own
// group (affinity.NewGroup makes a command start one).
func TerminateGroup(pid int) error { return signalGroup(pid, syscall.SIGTERM) }

// KillGroup sends SIGKILL as TerminateGroup sends SIGTERM.
func KillGroup(pid int) error { return signalGroup(pid, syscall.SIGKILL) }

func signalGroup(pid int, sig syscall.Signal) error {
	if pid <= 0 {
		return fmt.Errorf("hosts: signal %v to process group %d: not a process id", sig, pid)
	}
	if syscall.Kill(-pid, sig) == nil {
		return nil
	}
	if err := syscall.Kill(pid, sig); err != nil {
		return fmt.Errorf("hosts: signal %v to process %d: %w", sig, pid, os.NewSyscallError("kill", err))
	}
	return nil
}
