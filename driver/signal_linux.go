package driver

import (
	"syscall"

	"github.com/hoplat/hoplat/hosts"
)

// requestStats asks hoprelay to write its --stats file now (SIGUSR1).
func requestStats(p *hosts.Process) error { return p.Signal(syscall.SIGUSR1) }
