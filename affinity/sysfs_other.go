//go:build !linux

package affinity

import (
	"errors"
	"fmt"
	"runtime"
)

// OnlineCPUs returns CPUs 0 to runtime.NumCPU()-1: without Linux's sysfs
// that is the best guess, and it keeps CPU lists parseable everywhere.
func OnlineCPUs() (CPUSet, error) {
	cpus := make([]int, runtime.NumCPU())
	for i := range cpus {
		cpus[i] = i
	}
	return NewCPUSet(cpus...), nil
}

// ReadCPULayout needs Linux's sysfs.
func ReadCPULayout() (CPULayout, error) {
	return CPULayout{}, fmt.Errorf("affinity: read topology: %w", errors.ErrUnsupported)
}
