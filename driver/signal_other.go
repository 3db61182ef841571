//go:build !linux

package driver

import (
	"errors"
	"fmt"

	"github.com/hoplat/hoplat/hosts"
)

// requestStats needs a SIGUSR1, which this platform does not have.
func requestStats(p *hosts.Process) error {
	return fmt.Errorf("driver: signal %s for stats: %w", p.Name, errors.ErrUnsupported)
}
