//go:build !linux

package affinity

import (
	"errors"
	"fmt"
	"time"
)

// Slice bounds, as on Linux.
const (
	MinSlice = 100 * time.Microsecond
	MaxSlice = 100 * time.Millisecond
)

// SetThreadSlice needs Linux's EEVDF scheduler.
func SetThreadSlice(d time.Duration) (time.Duration, error) {
	return 0, fmt.Errorf("affinity: slice %v: %w", d, errors.ErrUnsupported)
}
