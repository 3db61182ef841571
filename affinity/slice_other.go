//go:build !linux

package affinity

import (
	"errors"
	"fmt"
	"time"
)

// SetThreadSlice needs Linux's EEVDF scheduler.
func SetThreadSlice(d time.Duration) (time.Duration, error) {
	return 0, fmt.Errorf("affinity: slice %v: %w", d, errors.ErrUnsupported)
}
