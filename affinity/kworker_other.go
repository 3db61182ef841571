//go:build !linux

package affinity

import (
	"errors"
	"fmt"
)

// ReadKworkers needs Linux's /proc and its workqueue threads.
func ReadKworkers(cpus CPUSet) (Kworkers, error) {
	return Kworkers{}, fmt.Errorf("affinity: read kworkers of CPUs %s: %w", cpus, errors.ErrUnsupported)
}
