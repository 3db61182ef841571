package driver

import (
	"os"
	"syscall"
)

// maxRSSKiB is an exited process's peak resident set from wait4's rusage
// (ru_maxrss, KiB on Linux: getrusage(2)).
func maxRSSKiB(ps *os.ProcessState) int64 {
	if ps == nil {
		return 0
	}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return ru.Maxrss
	}
	return 0
}
