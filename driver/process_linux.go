package driver

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the child in a process group of its own, so that a
// signal to -PID reaches it and everything it forks (socat forks a child per
// connection), and so that the terminal's Ctrl-C reaches only hopbench,
// which then stops the components in order. Pdeathsig covers the case where
// hopbench itself is killed: the kernel sends SIGTERM to the child when the
// parent goes away, and the child unlinks its UNIX paths as it exits.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

func terminate(cmd *exec.Cmd) { signalGroup(cmd, syscall.SIGTERM) }
func kill(cmd *exec.Cmd)      { signalGroup(cmd, syscall.SIGKILL) }

func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process == nil {
		return
	}
	// The group id is the child's PID (Setpgid with Pgid 0).
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		cmd.Process.Signal(sig)
	}
}

// setNice sets the scheduling niceness of process pid (setpriority(2)).
func setNice(pid, nice int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, pid, nice)
}
