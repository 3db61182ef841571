//go:build !linux

package driver

import (
	"errors"
	"fmt"
	"time"
)

// processCPU needs Linux's /proc.
func processCPU(pid int) (time.Duration, error) {
	return 0, fmt.Errorf("driver: CPU of %d: %w", pid, errors.ErrUnsupported)
}
