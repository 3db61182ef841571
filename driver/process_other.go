//go:build !linux

package driver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// Process groups and Pdeathsig are Linux facilities here; elsewhere a
// component is stopped by its own PID only.
func setProcessGroup(cmd *exec.Cmd) {}

func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Signal(os.Interrupt)
	}
}

func kill(cmd *exec.Cmd) {
	if cmd.Process != nil {
		cmd.Process.Kill()
	}
}

func setNice(pid, nice int) error {
	return fmt.Errorf("driver: nice %d for pid %d: %w", nice, pid, errors.ErrUnsupported)
}
