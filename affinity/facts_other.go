//go:build !linux

package affinity

import (
	"errors"
	"fmt"
)

// ReadCPUFacts needs Linux's sysfs.
func ReadCPUFacts() (CPUFacts, error) {
	return CPUFacts{}, fmt.Errorf("affinity: CPU facts: %w", errors.ErrUnsupported)
}
