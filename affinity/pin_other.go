//go:build !linux

package affinity

import (
	"errors"
	"fmt"
)

// PinThread needs Linux's sched_setaffinity(2).
func PinThread(cpus CPUSet) (granted CPUSet, err error) {
	return CPUSet{}, fmt.Errorf("affinity: pin thread to %s: %w", cpus, errors.ErrUnsupported)
}

// ThreadCPUs needs Linux's sched_getaffinity(2).
func ThreadCPUs() (CPUSet, error) {
	return CPUSet{}, fmt.Errorf("affinity: thread CPUs: %w", errors.ErrUnsupported)
}

// CurrentCPU needs Linux's getcpu(2).
func CurrentCPU() (int, error) {
	return 0, fmt.Errorf("affinity: current CPU: %w", errors.ErrUnsupported)
}
