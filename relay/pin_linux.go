package relay

import (
	"os"

	"golang.org/x/sys/unix"
)

// pinThread binds the calling OS thread (the caller holds
// runtime.LockOSThread) to one CPU: sched_setaffinity with pid 0 applies to
// the calling thread only.
func pinThread(cpu int) error {
	var set unix.CPUSet
	set.Set(cpu)
	return os.NewSyscallError("sched_setaffinity", unix.SchedSetaffinity(0, &set))
}
