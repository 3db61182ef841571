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

// ReadGroupCPU needs Linux's /proc.
func ReadGroupCPU(pid int) (GroupCPU, error) {
	return GroupCPU{}, fmt.Errorf("affinity: CPU of %d: %w", pid, errors.ErrUnsupported)
}
