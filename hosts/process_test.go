package hosts

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/await"
	"github.com/hoplat/hoplat/internal/porttest"
	"github.com/hoplat/hoplat/sockets"
)

func start(t *testing.T, name, script string) *Process {
	t.Helper()
	p, err := Start(Command{Name: name, Argv: []string{"sh", "-c", script}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop() })
	return p
}

func TestProcessListeningLines(t *testing.T) {
	var copied strings.Builder
	p, err := Start(Command{Name: "stand-in", Stdout: &copied,
		Argv: []string{"sh", "-c", `echo "some banner"; echo "listening tcp:127.0.0.1:4321"; echo "listening unix:/w/x.sock"; exec sleep 60`}})
	if err != nil {
		t.Fatal(err)
	}
	addrs, err := p.Listening(context.Background(), 2, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if addrs[0].Port != 4321 || addrs[1].Path != "/w/x.sock" {
		t.Errorf("addrs %v", addrs)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	if err := p.Stop(); err != nil {
		t.Errorf("second stop: %v", err)
	}
	// Stop has waited for the copy of stdout to end.
	if !strings.HasPrefix(copied.String(), "some banner\nlistening tcp:") {
		t.Errorf("stdout copied as %q", copied.String())
	}
}

// A readiness line split across writes, and one longer than a line may be,
// are each read as they should.
func TestReadinessLines(t *testing.T) {
	p := newProcess(Command{Argv: []string{"x"}})
	r := &readiness{p: p}
	r.Write([]byte("listening tcp:127.0.0."))
	r.Write([]byte("1:80\nnoise " + strings.Repeat("x", 2*maxLine)))
	r.Write([]byte("\nlistening unix:/a\n"))
	if a := <-p.listening; a.Port != 80 {
		t.Errorf("first %v", a)
	}
	if a := <-p.listening; a.Path != "/a" {
		t.Errorf("second %v", a)
	}
	select {
	case a := <-p.listening:
		t.Errorf("a third line %v", a)
	default:
	}
}

func TestProcessExitsBeforeListening(t *testing.T) {
	p := start(t, "broken", "echo 'bind: address in use' >&2; exit 3")
	_, err := p.Listening(context.Background(), 1, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "address in use") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("error %v should carry the exit status and stderr", err)
	}
}

// Stop reaches what the component forked (socat forks a child per
// connection): the whole process group goes.
func TestStopKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	p := start(t, "forker", "sleep 60 & echo $! > "+pidFile+"; echo listening tcp:127.0.0.1:1; wait")
	if _, err := p.Listening(context.Background(), 1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	child, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	p.Stop()
	// The child was reparented when sh died, so it cannot be waited for:
	// it is gone once it is no longer alive (pidAlive: signal 0 fails, or
	// a zombie awaiting its new parent). Signal delivery is asynchronous.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := await.Poll(ctx, nil, 100*time.Millisecond, func() bool { return !pidAlive(child) }); err != nil {
		t.Errorf("child %d of the stopped group still runs", child)
		syscall.Kill(child, syscall.SIGKILL)
	}
}

// A component that ignores SIGTERM is killed after the grace period.
func TestStopEscalatesToKill(t *testing.T) {
	if testing.Short() {
		t.Skip("waits StopGrace")
	}
	p := start(t, "stubborn", "trap '' TERM; echo listening tcp:127.0.0.1:1; while :; do sleep 1; done")
	if _, err := p.Listening(context.Background(), 1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	p.Stop()
	// A lower bound: Stop waits out the grace by its timer before it
	// kills, so it never returns sooner, on any machine.
	if d := time.Since(began); d < StopGrace {
		t.Errorf("stopped after %v, before the grace period", d)
	}
}

func tcpAddr(t *testing.T, ln net.Listener) sockets.Addr {
	t.Helper()
	a, err := sockets.Parse("tcp:" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestProbe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p := start(t, "sleeper", "exec sleep 60")
	if err := p.Probe(context.Background(), tcpAddr(t, ln), 5*time.Second); err != nil {
		t.Errorf("probe of a listening port: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Probe(ctx, sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: porttest.Closed(t)}, 5*time.Second); err == nil {
		t.Error("probe of a closed port succeeded")
	}
}

// A probe gives up as soon as the component exits, instead of polling to
// its timeout.
func TestProbeStopsWhenProcessExits(t *testing.T) {
	p := start(t, "quitter", "exit 1")
	began := time.Now()
	err := p.Probe(context.Background(), sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: porttest.Closed(t)}, time.Minute)
	// A probe that polled to its timeout would take the minute; one
	// that saw the exit, the time sh takes to start and exit (ms): 10 s
	// parts them on any machine.
	if err == nil || time.Since(began) > 10*time.Second {
		t.Errorf("probe: %v after %v", err, time.Since(began))
	}
	var exit interface{ ExitCode() int }
	if !errors.As(p.waitErr, &exit) {
		t.Errorf("wait error %v", p.waitErr)
	}
}

// A file the process writes ends the wait; its exit ends it with the
// exit's error.
func TestAwaitFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "stats.json")
	p := start(t, "writer", "echo {} > "+path+".part && mv "+path+".part "+path+"; exec sleep 60")
	if err := p.AwaitFile(context.Background(), path, 5*time.Second); err != nil {
		t.Errorf("written: %v", err)
	}
	q := start(t, "quitter", "exit 2")
	err := q.AwaitFile(context.Background(), filepath.Join(dir, "never"), time.Minute)
	if err == nil || !strings.Contains(err.Error(), "exit status 2") {
		t.Errorf("exited: %v", err)
	}
}

// A foreign program's stdout is in the tail that errors quote.
func TestForeignStdoutInTail(t *testing.T) {
	p, err := Start(Command{Name: "proxy", Foreign: true, Argv: []string{"sh", "-c", "echo 'config line 3: bad'; exit 1"}})
	if err != nil {
		t.Fatal(err)
	}
	err = p.Probe(context.Background(), sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: porttest.Closed(t)}, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "config line 3: bad") {
		t.Errorf("probe: %v", err)
	}
}

// An attached process is never signalled.
func TestAttached(t *testing.T) {
	p := Attached("mysqld", os.Getpid())
	if err := p.Stop(); err != nil || p.PID() != os.Getpid() {
		t.Errorf("stop %v, pid %d", err, p.PID())
	}
	if err := p.Signal(syscall.SIGUSR1); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("signal: %v", err)
	}
}
