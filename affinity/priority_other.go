//go:build !linux

package affinity

import (
	"errors"
	"fmt"
)

// SetNice needs Linux, where nice is per thread.
func SetNice(n int) error {
	return fmt.Errorf("affinity: set nice %d: %w", n, errors.ErrUnsupported)
}

// SetFIFO needs Linux's sched_setattr(2).
func SetFIFO(prio int) error {
	return fmt.Errorf("affinity: set SCHED_FIFO %d: %w", prio, errors.ErrUnsupported)
}
