package driver

import (
	"fmt"
	"os/exec"
	"runtime"

	"github.com/hoplat/hoplat/affinity"
)

// Components of a path, as --placement names them.
const (
	ComponentClient = "client"
	ComponentRelay  = "relay"
	ComponentServer = "server"
)

// cpusOf is the --cpus value of a component under p; "" when p leaves it
// unplaced. hoplat's own binaries take it as well as the inherited mask so
// that they pin each worker thread and report the pinning they obtained.
func cpusOf(p affinity.Placement, component string) string {
	if cpus, ok := p.For(component); ok {
		return cpus.String()
	}
	return ""
}

// startOn starts cmd restricted to cpus (none: unrestricted). A child
// inherits the CPU mask of the thread that forks it (sched_setaffinity(2)),
// so the fork runs on a thread pinned for the occasion: this pins socat and
// HAProxy, which take no --cpus flag, the same way as hoplat's own
// binaries, and pins the whole process — every thread it will create — from
// its first instruction.
//
// The thread's own mask is restored before it is unlocked: a thread left
// narrowed would run other goroutines on those CPUs, and a thread left to
// exit would fire the children's Pdeathsig, which the kernel ties to the
// forking thread, not the process.
func startOn(cmd *exec.Cmd, cpus affinity.CPUSet) error {
	if cpus.Len() == 0 {
		return cmd.Start()
	}
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		orig, err := affinity.ThreadCPUs()
		if err != nil {
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("driver: pin %s: %w", cmd.Path, err)
			return
		}
		if _, err := affinity.PinThread(cpus); err != nil { // locks once more on success
			runtime.UnlockOSThread()
			errc <- fmt.Errorf("driver: pin %s: %w", cmd.Path, err)
			return
		}
		startErr := cmd.Start()
		if _, err := affinity.PinThread(orig); err != nil {
			// Stay locked: the runtime ends the thread with this
			// goroutine, and the child's Pdeathsig stops it, which the
			// error makes the caller expect.
			errc <- fmt.Errorf("driver: restore thread CPUs %s after starting %s: %w", orig, cmd.Path, err)
			return
		}
		runtime.UnlockOSThread() // the restoring PinThread's lock
		runtime.UnlockOSThread() // the pinning PinThread's lock
		runtime.UnlockOSThread() // ours
		errc <- startErr
	}()
	return <-errc
}
