package hosts

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/await"
	"github.com/hoplat/hoplat/internal/tailbuf"
	"github.com/hoplat/hoplat/sockets"
)

// Command is one component to start.
type Command struct {
	Name string   // what errors call it: "pongd"; argv[0] when empty
	Argv []string // argv[0] as Binary or the host's PATH gives it
	// CPUs and Nice are the CPU mask and the nice value (-20 to 19; 0
	// leaves the caller's) that the process and every thread it creates
	// have from its first instruction, on this machine or in a namespace;
	// an ssh host's component takes its CPUs as a flag of its own.
	CPUs affinity.CPUSet
	Nice int
	// Foreign marks a program that prints no readiness lines, a user's
	// proxy: its stdout joins the stderr tail that errors quote, and
	// Listening has nothing to wait for.
	Foreign bool
	Stdout  io.Writer // a copy of its stdout; nil for none
	Stderr  io.Writer // a copy of its stderr; the last 4 KiB go in errors anyway
}

// Process is one component — a responder, a relay, socat, HAProxy, a
// database — running as an OS process of its own in a process group of its
// own, so that stopping it by PID also stops what it forked (socat's
// per-connection children). It reads its stdout for readiness lines
// (`listening ADDR`, as cmd/pongd and cmd/hoprelay print them) and keeps
// the tail of its stderr for errors. Start runs one on this machine,
// Testbed.Start on any host of a testbed, and Attached stands for one that
// hoplat did not start.
type Process struct {
	Name string   // what errors and the report call it: "pongd", "epoll tcp->tcp", "socat"
	Host string   // the testbed host it runs on; "" for this machine outside a testbed
	Argv []string // as given to Start

	cmd       *exec.Cmd // the process itself; on an ssh host its ssh session
	pid       int       // on its host
	stderr    *tailbuf.Buffer
	listening chan sockets.Addr     // closed once it has exited
	badLine   atomic.Pointer[error] // the first readiness line that named no address (ErrBadReadinessLine)
	done      chan struct{}         // closed once it has been waited for
	waitErr   error

	foreign   bool // Command.Foreign: listening is closed from the start
	stopOnce  sync.Once
	stopped   atomic.Bool // Stop has been called: the testbed's Close leaves it to its owner
	stopErr   error
	signalled bool // Stop signalled it: an exit by that signal is no error

	h      *host     // nil outside a testbed
	tb     *Testbed  // nil outside a testbed
	stdout io.Closer // ssh: the session's stdout pipe
	// netns is the namespace file a netns host's process listens in, for
	// Probe's connect(2); "" dials from here.
	netns string
}

// StopGrace is how long Stop waits after SIGTERM before SIGKILL: long
// enough for a relay to write its stats and unlink its UNIX paths.
const StopGrace = 3 * time.Second

// Start starts c on this machine, as this process's child in a process
// group of its own, on c.CPUs with c.Nice from its first instruction.
func Start(c Command) (*Process, error) {
	if len(c.Argv) == 0 {
		return nil, fmt.Errorf("hosts: start %s: empty command", c.Name)
	}
	p := newProcess(c)
	if err := p.startHere(c, c.Argv); err != nil {
		return nil, fmt.Errorf("hosts: start %s: %w", p.Name, err)
	}
	return p, nil
}

// Attached stands for process pid, which hoplat did not start, for the
// figures read from its PID: it is never signalled (Stop does nothing) and
// never waited for (Done is never closed).
func Attached(name string, pid int) *Process {
	return &Process{Name: name, pid: pid, done: make(chan struct{})}
}

func newProcess(c Command) *Process {
	if c.Name == "" {
		c.Name = c.Argv[0]
	}
	return &Process{
		Name:      c.Name,
		Argv:      c.Argv,
		stderr:    tailbuf.New(4096),
		listening: make(chan sockets.Addr, 16),
		done:      make(chan struct{}),
	}
}

// Start starts c on host name in the background. Local and netns processes
// are this process's children as Start makes them, the ip(8) of `ip netns
// exec` executing c in place; an ssh host's process is the child of its sshd
// session, and Start returns once its PID there is known. Close stops
// whatever is still running.
func (tb *Testbed) Start(ctx context.Context, name string, c Command) (*Process, error) {
	h, err := tb.host(name)
	if err != nil {
		return nil, err
	}
	if len(c.Argv) == 0 {
		return nil, fmt.Errorf("hosts: %s: start %s: empty command", h, c.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("hosts: %s: start %s: %w", h, c.Argv[0], err)
	}
	p := newProcess(c)
	p.Host, p.h, p.tb = name, h, tb
	if h.Kind == SSH {
		if err := tb.startSSH(ctx, p, c); err != nil {
			return nil, err
		}
	} else {
		argv, _ := tb.Argv(name, c.Argv)
		if h.Kind == NetNS {
			// ip-netns(8) keeps a named namespace's file here.
			p.netns = filepath.Join("/run/netns", h.ns)
		}
		if err := p.startHere(c, argv); err != nil {
			return nil, fmt.Errorf("hosts: %s: start %s: %w", h, p.Name, err)
		}
	}
	tb.mu.Lock()
	closed := tb.closed
	if !closed {
		tb.undo = append(tb.undo, undoStep{fmt.Sprintf("stop %s on %s", p.Name, name),
			Step{Kind: CloseProcess, Process: p.Name, Host: name}, func(context.Context) error { return p.stopLeft() }})
	}
	tb.mu.Unlock()
	if closed {
		p.Stop()
		return nil, fmt.Errorf("hosts: %s: start %s: testbed closed", h, c.Name)
	}
	return p, nil
}

// startHere starts argv as this process's child.
func (p *Process) startHere(c Command, argv []string) error {
	p.cmd = exec.Command(argv[0], argv[1:]...)
	// A group of its own, so that stopping it stops what it forks, and a
	// terminal's Ctrl-C reaches only this process, which then stops the
	// components in order.
	affinity.NewGroup(p.cmd)
	p.cmd.Stdout = p.stdoutWriter(c)
	p.cmd.Stderr = p.stderrWriter(c)
	// A child that forked children of its own that hold its output open
	// (socat's, a daemon's) must not hold Wait, and so Stop, once it has
	// exited.
	p.cmd.WaitDelay = time.Second
	if err := p.own(c.CPUs, c.Nice, func() {}); err != nil {
		return err
	}
	p.pid = p.cmd.Process.Pid
	return nil
}

func (p *Process) stderrWriter(c Command) io.Writer {
	if c.Stderr != nil {
		return io.MultiWriter(p.stderr, c.Stderr)
	}
	return p.stderr
}

// stdoutWriter is where the process's stdout goes: to the readiness lines,
// or for a foreign program to the stderr tail; and to c.Stdout.
func (p *Process) stdoutWriter(c Command) io.Writer {
	var w io.Writer = &readiness{p: p}
	if c.Foreign {
		w = p.stderr
		p.foreign = true
		close(p.listening)
	}
	if c.Stdout != nil {
		w = io.MultiWriter(w, c.Stdout)
	}
	return w
}

// own starts p.cmd and waits for it on one goroutine, its owner: the owner
// reads what it must (on an ssh host the session's stdout, to EOF, which
// Wait requires before it may close a pipe), then waits. Stop and everything else synchronise on done. The owner forks the
// child on an OS thread of its own, locked and never unlocked, that it
// waits on: the child inherits that thread's CPU mask and nice value
// (affinity.StartLocked), and its Pdeathsig fires when that thread exits
// (prctl(2), PR_SET_PDEATHSIG: the forking thread, not the process), so the
// thread ends with the owner, after the child. A child forked from a
// thread the runtime hands on could be signalled whenever some other
// goroutine that locked that thread ends.
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
		// Wait returns once the copy of stdout into the readiness lines
		// has ended, so nothing sends on listening after this.
		p.waitErr = p.cmd.Wait()
		if !p.foreign {
			close(p.listening)
		}
		close(p.done)
	}()
	return <-started
}

// ErrBadReadinessLine is what a `listening` line whose address did not
// parse is: the reason a process that printed one is not found listening.
// Listening's error wraps the first, with the line and the parse error.
var ErrBadReadinessLine = errors.New("bad readiness line")

// notListening is err, why Listening failed, with the first bad readiness
// line the process printed, if any.
func (p *Process) notListening(err error) error {
	if bad := p.badLine.Load(); bad != nil {
		return fmt.Errorf("%w (after a %w)", err, *bad)
	}
	return err
}

// readiness reads `listening ADDR` lines from what it is written, for
// Listening.
type readiness struct {
	p    *Process
	line []byte
}

// maxLine bounds a partial line kept: longer ones are no readiness line.
const maxLine = 4096

func (r *readiness) Write(b []byte) (int, error) {
	n := len(b)
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if len(r.line)+len(b) <= maxLine {
				r.line = append(r.line, b...)
			} else {
				r.line = append(r.line[:0], "!"...) // drop up to the next newline
			}
			break
		}
		if len(r.line)+i <= maxLine {
			r.line = append(r.line, b[:i]...)
			r.parse(string(r.line))
		}
		r.line, b = r.line[:0], b[i+1:]
	}
	return n, nil
}

func (r *readiness) parse(line string) {
	rest, ok := strings.CutPrefix(line, "listening ")
	if !ok {
		return
	}
	a, err := sockets.Parse(strings.TrimSpace(rest))
	if err != nil {
		bad := fmt.Errorf("%w %q: %w", ErrBadReadinessLine, line, err)
		r.p.badLine.CompareAndSwap(nil, &bad)
		return
	}
	select {
	case r.p.listening <- a:
	default: // nobody asked for more lines than this; drop the rest
	}
}

// PID is the process's id on its host, which is also its process group's.
func (p *Process) PID() int { return p.pid }

// Remote reports whether the process runs on another machine (an ssh host),
// where its PID names nothing on this one.
func (p *Process) Remote() bool { return p.h != nil && p.h.Kind == SSH }

// Done is closed once the process has exited and been waited for (for an
// ssh host: once its session has ended).
func (p *Process) Done() <-chan struct{} { return p.done }

// Stderr is the last few KiB the process wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// label names the process in errors: with its host when it has one.
func (p *Process) label() string {
	if p.h == nil {
		return p.Name
	}
	return p.Name + " on " + p.Host
}

// Wait waits for the process to exit and returns how it exited.
func (p *Process) Wait() error {
	<-p.done
	if p.waitErr != nil {
		return fmt.Errorf("hosts: %s: %w (stderr: %s)", p.label(), p.waitErr, p.stderr)
	}
	return nil
}

// Listening waits for n readiness lines and returns their addresses, or
// fails when the process exits first, ctx ends, or timeout passes.
func (p *Process) Listening(ctx context.Context, n int, timeout time.Duration) ([]sockets.Addr, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var addrs []sockets.Addr
	for len(addrs) < n {
		select {
		case a, ok := <-p.listening:
			if !ok { // it exited, or prints no readiness lines (Foreign)
				select {
				case <-p.done:
					return nil, p.notListening(p.exitError("before it was listening"))
				case <-timer.C:
					return nil, fmt.Errorf("hosts: %s prints no `listening` lines", p.label())
				case <-ctx.Done():
					return nil, fmt.Errorf("hosts: %s: waiting for %d listeners: %w", p.label(), n, ctx.Err())
				}
			}
			addrs = append(addrs, a)
		case <-ctx.Done():
			return nil, fmt.Errorf("hosts: %s: waiting for %d listeners: %w", p.label(), n, ctx.Err())
		case <-timer.C:
			return nil, p.notListening(fmt.Errorf("hosts: %s: no `listening` line after %v (stderr: %s)", p.label(), timeout, p.stderr))
		}
	}
	return addrs, nil
}

// Probe waits until addr accepts a connection, for components that print
// no readiness line (socat, HAProxy, a database). It retries connect(2),
// from the process's namespace when it runs in one, with a backoff that
// starts at 1 ms and doubles to 50 ms, and gives up when the process exits
// (a bind failure, a bad config), ctx ends, or timeout passes. The
// connection is closed at once: socat forks a child for it that exits on
// the EOF, and a responder sees a client that left before its first
// request.
func (p *Process) Probe(ctx context.Context, addr sockets.Addr, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	dial := addr
	dial.Role = sockets.RoleConnect
	dial.Opts = sockets.Options{}
	network := dial.Network
	if dial.IsUnix() {
		network = "unix"
	}
	var last error
	err := await.Poll(ctx, p.done, 50*time.Millisecond, func() bool {
		c, err := p.dialContext(ctx, network, dial.NetAddr())
		if err != nil {
			last = err
			return false
		}
		c.Close()
		return true
	})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, await.ErrExited):
		return p.exitError("before it accepted connections on " + addr.String())
	default:
		return fmt.Errorf("hosts: %s: not accepting on %s after %v: %v (stderr: %s)", p.label(), addr, timeout, last, p.stderr)
	}
}

// dialContext is Probe's connect(2): from the process's namespace for TCP
// when it runs in one, from here otherwise (a UNIX path is reachable from
// every namespace on this machine).
func (p *Process) dialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if p.netns != "" && network != "unix" {
		return sockets.DialNamespace(ctx, p.netns, network, address)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, address)
}

// AwaitFile waits, up to timeout, for the process to create path, as
// hoprelay renames its --stats into place on SIGUSR1; it fails when the
// process exits first or ctx ends.
func (p *Process) AwaitFile(ctx context.Context, path string, timeout time.Duration) error {
	wait, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	switch err := await.File(wait, path, p.done); {
	case err == nil:
		return nil
	case errors.Is(err, await.ErrExited):
		return p.exitError("before it wrote " + path)
	case ctx.Err() != nil:
		return ctx.Err()
	default:
		return fmt.Errorf("hosts: %s: %s not written within %v", p.label(), path, timeout)
	}
}

func (p *Process) exitError(when string) error {
	return fmt.Errorf("hosts: %s exited %s: %v (command: %s; stderr: %s)",
		p.label(), when, p.waitErr, strings.Join(p.Argv, " "), p.stderr)
}

// Signal sends sig to the process alone, not its group: on this machine or
// in a namespace; an ssh host's process is signalled only by Stop.
func (p *Process) Signal(sig os.Signal) error {
	if p.cmd == nil || p.Remote() {
		return fmt.Errorf("hosts: signal %v to %s: %w", sig, p.label(), errors.ErrUnsupported)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("hosts: signal %v to %s: %w", sig, p.label(), err)
	}
	return nil
}

// Stop sends SIGTERM to the process's group, waits up to StopGrace, then
// sends SIGKILL, and returns once the process has been waited for; an exit
// caused by its signals is no error. Stop is safe to call more than once
// and from several goroutines. It does nothing to an Attached process.
func (p *Process) Stop() error {
	if p.cmd == nil {
		return nil
	}
	p.stopped.Store(true)
	p.stopOnce.Do(func() {
		if p.Remote() {
			p.signalled = true
			p.stopErr = p.tb.stopSSH(p)
			return
		}
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
	if p.Remote() {
		return p.stopErr
	}
	var exit *exec.ExitError
	if errors.As(p.waitErr, &exit) && (!exit.Exited() || p.signalled && exit.ExitCode() == 128+15) ||
		p.signalled && errors.Is(p.waitErr, exec.ErrWaitDelay) {
		// Ended by our signal, as asked, or exited with the status a
		// shell gives death by SIGTERM (socat does so), or left a child
		// holding its output that the group's signal ends too.
		return nil
	}
	if p.waitErr != nil {
		return fmt.Errorf("hosts: stop %s: %w (stderr: %s)", p.label(), p.waitErr, p.stderr)
	}
	return nil
}

// stopLeft is the testbed's Close step for the process: Stop, unless its
// owner has stopped it already and heard how it ended.
func (p *Process) stopLeft() error {
	if p.stopped.Load() {
		return nil
	}
	return p.Stop()
}

// terminate asks cmd's process group to stop; where there are no process
// groups, the process itself.
func terminate(cmd *exec.Cmd) {
	if cmd.Process != nil && TerminateGroup(cmd.Process.Pid) != nil {
		cmd.Process.Signal(os.Interrupt)
	}
}

// kill ends cmd's process group, or the process itself.
func kill(cmd *exec.Cmd) {
	if cmd.Process != nil && KillGroup(cmd.Process.Pid) != nil {
		cmd.Process.Kill()
	}
}

// shellQuote quotes s for a POSIX shell: ssh hands the remote side one
// string, which the user's login shell splits again (ssh(1), "If a command
// is specified, it is executed on the remote host instead of a login
// shell").
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=/.,:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
