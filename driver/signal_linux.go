package driver

import "syscall"

// requestStats asks hoprelay to write its --stats file now (SIGUSR1).
func requestStats(p *Process) error { return p.cmd.Process.Signal(syscall.SIGUSR1) }
