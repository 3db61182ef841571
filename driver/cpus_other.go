//go:build !linux

package driver

import (
	"errors"
	"fmt"
)

// AllowedCPUs needs /proc; elsewhere it is unsupported.
func AllowedCPUs(pid int) (string, error) {
	return "", fmt.Errorf("driver: allowed CPUs of pid %d: %w", pid, errors.ErrUnsupported)
}
