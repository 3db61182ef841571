package hosts

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/internal/tailbuf"
)

// Command is one component to start on a host.
type Command struct {
	Name   string   // what errors call it: "pongd"
	Argv   []string // argv[0] as Binary or the host's PATH gives it
	Stdout io.Writer
	Stderr io.Writer // nil for discarded; the last 4 KiB go in errors anyway
}

// Process is a component running on a host, started by Start.
type Process struct {
	Name string
	Host string

	pid    int // on its host
	cmd    *exec.Cmd
	h      *host
	tb     *Testbed
	stderr *tailbuf.Buffer
	stdout io.Closer // ssh: the session's stdout pipe
	done   chan struct{}
	err    error

	stopOnce  sync.Once
	stopErr   error
	signalled bool
}

// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
const StopGrace = 3 * time.Second

// Start starts c on host name in the background. Local and netns processes
// are this process's children in a process group of their own; an ssh
// host's process is the child of its sshd session, and Start returns once
// its PID there is known. Close stops whatever is still running.
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
	if c.Name == "" {
		c.Name = c.Argv[0]
	}
	p := &Process{Name: c.Name, Host: name, h: h, tb: tb, stderr: tailbuf.New(4096), done: make(chan struct{})}
	var errOut io.Writer = p.stderr
	if c.Stderr != nil {
		errOut = io.MultiWriter(p.stderr, c.Stderr)
	}
	out := c.Stdout
	if out == nil {
		out = io.Discard
	}
	if h.Kind == SSH {
		if err := tb.startSSH(ctx, p, c.Argv, out, errOut); err != nil {
			return nil, err
		}
	} else {
		argv, _ := tb.Argv(name, c.Argv)
		p.cmd = exec.Command(argv[0], argv[1:]...)
		p.cmd.Stdout, p.cmd.Stderr = out, errOut
		// A child that forked its own children holding the pipes open
		// (socat) must not hold Wait once the group has been killed.
		p.cmd.WaitDelay = time.Second
		setProcAttr(p.cmd)
		if err := p.cmd.Start(); err != nil {
			return nil, fmt.Errorf("hosts: %s: start %s: %w", h, c.Name, err)
		}
		p.pid = p.cmd.Process.Pid
		go func() {
			p.err = p.cmd.Wait()
			close(p.done)
		}()
	}
	tb.mu.Lock()
	closed := tb.closed
	if !closed {
		tb.undo = append(tb.undo, undoStep{fmt.Sprintf("stop %s on %s", p.Name, name), func(context.Context) error { return p.Stop() }})
	}
	tb.mu.Unlock()
	if closed {
		p.Stop()
		return nil, fmt.Errorf("hosts: %s: start %s: testbed closed", h, c.Name)
	}
	return p, nil
}

// PID is the process's id on its host.
func (p *Process) PID() int { return p.pid }

// Done is closed once the process has exited (for an ssh host: once its
// session has ended).
func (p *Process) Done() <-chan struct{} { return p.done }

// Wait waits for the process to exit and returns how it exited.
func (p *Process) Wait() error {
	<-p.done
	if p.err != nil {
		return fmt.Errorf("hosts: %s: %s: %w (stderr: %s)", p.h, p.Name, p.err, p.stderr)
	}
	return nil
}

// Stderr is the last few KiB the process wrote to stderr.
func (p *Process) Stderr() string { return p.stderr.String() }

// Stop sends SIGTERM to the process's group, waits up to StopGrace, then
// sends SIGKILL, and returns once the process has been waited for; an exit
// caused by its signals is no error. Stop is safe to call more than once.
func (p *Process) Stop() error {
	p.stopOnce.Do(func() {
		if p.h.Kind == SSH {
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
		signalGroup(p.pid, sigTerm)
		timer := time.NewTimer(StopGrace)
		defer timer.Stop()
		select {
		case <-p.done:
		case <-timer.C:
			signalGroup(p.pid, sigKill)
			<-p.done
		}
	})
	<-p.done
	if p.stopErr != nil {
		return p.stopErr
	}
	if p.err != nil && !p.signalled {
		return fmt.Errorf("hosts: %s: %s exited: %w (stderr: %s)", p.h, p.Name, p.err, p.stderr)
	}
	return nil
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
