package driver

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/tailbuf"
	"github.com/hoplat/hoplat/sockets"
)

// Process is one component of the topology — a responder, a relay, socat,
// HAProxy — running as its own OS process in its own process group, so that
// stopping it by PID also stops what it forked (socat's per-connection
// children).
type Process struct {
	Name string // what the table calls it: "pongd", "epoll tcp->tcp", "socat"
	Argv []string

	cmd       *exec.Cmd
	stderr    *tailbuf.Buffer
	listening chan sockets.Addr
	done      chan struct{} // closed once the process has been waited for
	waitErr   error
	stopOnce  sync.Once
	signalled bool // Stop sent SIGTERM: an exit status of 143 is then expected

	remote *hosts.Process // on an ssh host: cmd is nil (see startRemote)
	pid    int            // a process hopbench did not start (attached): cmd is nil
	// dial connects from where the process listens, for Probe; nil dials
	// from here (see hostBed.dialer).
	dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// StopGrace is how long Stop waits after SIGTERM before SIGKILL: long enough
// for a relay to write its stats and unlink its UNIX paths.
const StopGrace = 3 * time.Second

// Start runs argv as a new process group, on cpus when the set is not
// empty. Its stdout is read for readiness lines (`listening ADDR`, as
// cmd/pongd and cmd/hoprelay print them) and otherwise discarded; the tail of its stderr is kept for
// error messages.
func Start(name string, argv []string, cpus affinity.CPUSet) (*Process, error) {
	return StartNiced(name, argv, cpus, 0)
}

// StartNiced is Start with every thread of the process at nice value nice
// (0 leaves the caller's) from its first instruction.
func StartNiced(name string, argv []string, cpus affinity.CPUSet, nice int) (*Process, error) {
	p := &Process{
		Name:      name,
		Argv:      argv,
		stderr:    tailbuf.New(4096),
		listening: make(chan sockets.Addr, 16),
		done:      make(chan struct{}),
	}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	// A group of its own, so that stopping it stops what it forks
	// (socat's per-connection children), and Ctrl-C on the terminal
	// reaches only hopbench, which then stops the components in order.
	affinity.NewGroup(p.cmd)
	p.cmd.Stderr = p.stderr
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("driver: start %s: %w", name, err)
	}
	if err := p.own(cpus, nice, func() { p.readStdout(stdout) }); err != nil {
		return nil, fmt.Errorf("driver: start %s: %w", name, err)
	}
	return p, nil
}

// StartForeign is Start for a program that prints no readiness line, a
// user's proxy: its stdout joins the stderr tail, and it is waited for
// directly, with os/exec's WaitDelay bounding how long what it leaves
// holding its output (a child gone into the background) keeps Wait, and
// so Stop, from returning.
func StartForeign(name string, argv []string, cpus affinity.CPUSet) (*Process, error) {
	p := &Process{
		Name:      name,
		Argv:      argv,
		stderr:    tailbuf.New(4096),
		listening: make(chan sockets.Addr),
		done:      make(chan struct{}),
	}
	close(p.listening)
	p.cmd = exec.Command(argv[0], argv[1:]...)
	affinity.NewGroup(p.cmd)
	p.cmd.Stdout, p.cmd.Stderr = p.stderr, p.stderr
	p.cmd.WaitDelay = time.Second
	if err := p.own(cpus, 0, func() {}); err != nil {
		return nil, fmt.Errorf("driver: start %s: %w", name, err)
	}
	return p, nil
}

// own starts p.cmd and waits for it on one goroutine, its owner: the owner
// reads what it must (read, to EOF, which Wait requires before it may close
// a pipe), then waits. Stop and everything else synchronise on done. The
// owner forks the child on an OS thread of its own, locked and never
// unlocked, that it waits on: the child inherits that thread's CPU mask and
// nice value (affinity.StartLocked), and its Pdeathsig fires when that
// thread exits, so the thread ends with the owner, after the child.
func (p *Process) own(cpus affinity.CPUSet, nice int, read func()) error {
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		if err := affinity.StartLocked(p.cmd, cpus, nice); err != nil {
			started <- err
			return
		}
		started <- nil
		read()
		p.waitErr = p.cmd.Wait()
		close(p.done)
	}()
	return <-started
}

func (p *Process) readStdout(r io.Reader) {
	defer close(p.listening)
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "listening ")
		if !ok {
			continue
		}
		a, err := sockets.Parse(strings.TrimSpace(rest))
		if err != nil {
			fmt.Fprintf(p.stderr, "hopbench: %s: bad readiness line: %v\n", p.Name, err)
			continue
		}
		select {
		case p.listening <- a:
		default: // nobody asked for more lines than this; drop the rest
		}
	}
	// Keep draining whatever the scanner could not tokenise (a line past its
	// buffer) so the child never blocks writing to a full pipe.
	io.Copy(io.Discard, r)
}

// PID is the process's id, which is also its process group's id.
func (p *Process) PID() int {
	if p.remote != nil {
		return p.remote.PID()
	}
	if p.cmd == nil {
		return p.pid
	}
	return p.cmd.Process.Pid
}

// Done is closed once the process has exited and been waited for.
func (p *Process) Done() <-chan struct{} { return p.done }

// Listening waits for n readiness lines and returns their addresses, or
// fails when the process exits first, ctx ends, or timeout passes.
func (p *Process) Listening(ctx context.Context, n int, timeout time.Duration) ([]sockets.Addr, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var addrs []sockets.Addr
	for len(addrs) < n {
		select {
		case a, ok := <-p.listening:
			if !ok { // stdout closed: the process is exiting, or closed it itself
				select {
				case <-p.done:
					return nil, p.exitError("before it was listening")
				case <-timer.C:
					return nil, fmt.Errorf("driver: %s closed stdout before it was listening", p.Name)
				}
			}
			addrs = append(addrs, a)
		case <-ctx.Done():
			return nil, fmt.Errorf("driver: %s: waiting for %d listeners: %w", p.Name, n, ctx.Err())
		case <-timer.C:
			return nil, fmt.Errorf("driver: %s: no `listening` line after %v (stderr: %s)", p.Name, timeout, p.stderr)
		}
	}
	return addrs, nil
}

func (p *Process) exitError(when string) error {
	return fmt.Errorf("driver: %s exited %s: %v (command: %s; stderr: %s)",
		p.Name, when, p.waitErr, strings.Join(p.Argv, " "), p.stderr)
}

// Stop sends SIGTERM to the process group, waits up to StopGrace, then sends
// SIGKILL; it returns once the process has been waited for. Stop is safe to
// call more than once and from several goroutines.
func (p *Process) Stop() error {
	if p.remote != nil {
		err := p.remote.Stop()
		<-p.done
		return err
	}
	p.stopOnce.Do(func() {
		select {
		case <-p.done:
			return
		default:
		}
		p.signalled = true
		terminate(p.cmd)
		timer := time.NewTimer(StopGrace)
		defer timer.Stop()
		select {
		case <-p.done:
		case <-timer.C:
			kill(p.cmd)
			<-p.done
		}
	})
	<-p.done
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) && (!exit.Exited() || p.signalled && exit.ExitCode() == 128+15) {
		// Ended by our signal, as asked, or exited with the status a
		// shell gives death by SIGTERM (socat does so).
		return nil
	}
	if p.waitErr != nil {
		return fmt.Errorf("driver: stop %s: %w (stderr: %s)", p.Name, p.waitErr, p.stderr)
	}
	return nil
}

// terminate asks cmd's process group to stop; where there are no process
// groups, the process itself.
func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil && affinity.TerminateGroup(cmd.Process.Pid) != nil {
		cmd.Process.Signal(os.Interrupt)
	}
}

// kill ends cmd's process group, or the process itself.
func kill(cmd *exec.Cmd) {
	if cmd.Process != nil && affinity.KillGroup(cmd.Process.Pid) != nil {
		cmd.Process.Kill()
	}
}

// Stderr is the last few KiB the process wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }
