//go:build !linux

package driver

import (
	"errors"
	"fmt"
)

// requestStats needs a SIGUSR1, which this platform does not have.
func requestStats(p *Process) error {
	return fmt.Errorf("driver: signal %s for stats: %w", p.Name, errors.ErrUnsupported)
}
