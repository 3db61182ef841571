//go:build !linux

package affinity

import (
	"errors"
	"fmt"
	"time"
)

// ProcessCPUTime needs Linux's /proc.
func ProcessCPUTime(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("affinity: CPU of %d: %w", pid, errors.ErrUnsupported)
}

// ProcessClock needs Linux's process CPU clocks.
func ProcessClock(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("affinity: CPU clock of %d: %w", pid, errors.ErrUnsupported)
}

// ProcessName needs Linux's /proc.
func ProcessName(pid int) (string, error) {
	return "", fmt.Errorf("affinity: name of process %d: %w", pid, errors.ErrUnsupported)
}
