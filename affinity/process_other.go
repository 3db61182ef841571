//go:build !linux

package affinity

import (
	"errors"
	"fmt"
	"os/exec"
	"time"
)

// startOn: a CPU set needs Linux's sched_setaffinity(2).
func startOn(cmd *exec.Cmd, cpus CPUSet) error {
	return fmt.Errorf("affinity: start %s on %s: %w", cmd.Path, cpus, errors.ErrUnsupported)
}

// startLocked: a CPU set or a nice value needs Linux, where both are per
// thread.
func startLocked(cmd *exec.Cmd, cpus CPUSet, nice int) error {
	return fmt.Errorf("affinity: start %s on %s with nice %d: %w", cmd.Path, cpus, nice, errors.ErrUnsupported)
}

// NewGroup does nothing: process groups and Pdeathsig are Linux
// facilities here.
func NewGroup(cmd *exec.Cmd) {}

// ProcessCPUs needs Linux's sched_getaffinity(2).
func ProcessCPUs(pid int) (CPUSet, error) {
	return CPUSet{}, fmt.Errorf("affinity: CPUs of process %d: %w", pid, errors.ErrUnsupported)
}

// PinProcess needs Linux's sched_setaffinity(2).
func PinProcess(pid int, cpus CPUSet) (CPUSet, error) {
	return CPUSet{}, fmt.Errorf("affinity: pin process %d on %s: %w", pid, cpus, errors.ErrUnsupported)
}

// SetNice needs Linux, where nice is per thread.
func SetNice(pid, n int) error {
	return fmt.Errorf("affinity: set nice %d on process %d: %w", n, pid, errors.ErrUnsupported)
}

var errNanosleep = fmt.Errorf("affinity: nanosleep: %w", errors.ErrUnsupported)

// Nanosleep needs nanosleep(2) as Linux provides it; it returns at once,
// and the caller falls back to time.Sleep.
func Nanosleep(d time.Duration) error { return errNanosleep }

// Children needs Linux's /proc.
func Children(pid int) ([]int, error) {
	return nil, fmt.Errorf("affinity: children of process %d: %w", pid, errors.ErrUnsupported)
}
