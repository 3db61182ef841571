//go:build !linux

package hosts

import (
	"errors"
	"fmt"
)

// TerminateGroup needs Linux process groups; the caller signals the process
// itself.
func TerminateGroup(pid int) error {
	return fmt.Errorf("hosts: terminate process group %d: %w", pid, errors.ErrUnsupported)
}

// KillGroup needs Linux process groups; the caller kills the process
// itself.
func KillGroup(pid int) error {
	return fmt.Errorf("hosts: kill process group %d: %w", pid, errors.ErrUnsupported)
}
