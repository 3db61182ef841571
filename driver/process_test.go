package driver

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

	"github.com/hoplat/hoplat/affinity"
)

func TestProcessListeningLines(t *testing.T) {
	p, err := Start("stand-in", []string{"sh", "-c", `echo "some banner"; echo "listening tcp:127.0.0.1:4321"; echo "listening unix:/w/x.sock"; exec sleep 60`}, affinity.CPUSet{})
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
}

func TestProcessExitsBeforeListening(t *testing.T) {
	p, err := Start("broken", []string{"sh", "-c", "echo 'bind: address in use' >&2; exit 3"}, affinity.CPUSet{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Listening(context.Background(), 1, 5*time.Second)
	if err == nil || !strings.Contains(err.Error(), "address in use") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("error %v should carry the exit status and stderr", err)
	}
	p.Stop()
}

// Stop reaches what the component forked (socat forks a child per
// connection): the whole process group goes.
func TestStopKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child")
	p, err := Start("forker", []string{"sh", "-c", "sleep 60 & echo $! > " + pidFile + "; echo listening tcp:127.0.0.1:1; wait"}, affinity.CPUSet{})
	if err != nil {
		t.Fatal(err)
	}
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
	// it is gone once signal 0 fails, or a zombie awaiting its new parent
	// (state Z). Signal delivery is asynchronous, so look again, with a
	// deadline, until it is.
	deadline := time.Now().Add(5 * time.Second)
	for backoff := time.Millisecond; ; backoff = min(2*backoff, 100*time.Millisecond) {
		if err := syscall.Kill(child, 0); err != nil || isZombie(child) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("child %d of the stopped group still runs", child)
			syscall.Kill(child, syscall.SIGKILL)
			return
		}
		<-time.After(backoff)
	}
}

func isZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] == 'Z'
}

// A component that ignores SIGTERM is killed after the grace period.
func TestStopEscalatesToKill(t *testing.T) {
	if testing.Short() {
		t.Skip("waits StopGrace")
	}
	p, err := Start("stubborn", []string{"sh", "-c", "trap '' TERM; echo listening tcp:127.0.0.1:1; while :; do sleep 1; done"}, affinity.CPUSet{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Listening(context.Background(), 1, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	p.Stop()
	if d := time.Since(began); d < StopGrace {
		t.Errorf("stopped after %v, before the grace period", d)
	}
}

func TestProbe(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	p, err := Start("sleeper", []string{"sleep", "60"}, affinity.CPUSet{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	if err := Probe(context.Background(), p, TCPAddr(ln.Addr().(*net.TCPAddr).Port), 5*time.Second); err != nil {
		t.Errorf("probe of a listening port: %v", err)
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Probe(ctx, p, TCPAddr(port), 5*time.Second); err == nil {
		t.Error("probe of a closed port succeeded")
	}
}

// A probe gives up as soon as the component exits, instead of polling to
// its timeout.
func TestProbeStopsWhenProcessExits(t *testing.T) {
	p, err := Start("quitter", []string{"sh", "-c", "exit 1"}, affinity.CPUSet{})
	if err != nil {
		t.Fatal(err)
	}
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err = Probe(context.Background(), p, TCPAddr(port), time.Minute)
	if err == nil || time.Since(began) > 10*time.Second {
		t.Errorf("probe: %v after %v", err, time.Since(began))
	}
	var exit interface{ ExitCode() int }
	if !errors.As(p.waitErr, &exit) {
		t.Errorf("wait error %v", p.waitErr)
	}
}

// A component started on a CPU set runs there from its first instruction,
// as sched_getaffinity reads its mask, the placement records what it
// obtained, and the driver's own process keeps its mask.
func TestStartOnCPUs(t *testing.T) {
	online, err := affinity.OnlineCPUs()
	if err != nil {
		t.Fatal(err)
	}
	if online.Len() < 2 {
		t.Skipf("online CPUs %s: pinning to one is indistinguishable from not pinning", online)
	}
	before, err := affinity.ProcessCPUs(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	last := online.CPUs()[online.Len()-1]
	want := affinity.NewCPUSet(last)
	p, err := Start("sleeper", []string{"sleep", "60"}, want)
	if err != nil {
		if errors.Is(err, syscall.EPERM) {
			t.Skipf("sched_setaffinity refused here: %v", err)
		}
		t.Fatal(err)
	}
	defer p.Stop()
	got, err := affinity.ProcessCPUs(p.PID())
	if err != nil || !got.Equal(want) {
		t.Errorf("child may use %s, %v; want %s", got, err, want)
	}
	if s := obtainedCPUs(p.PID()); s != strconv.Itoa(last) {
		t.Errorf("obtained CPUs %q, want %d", s, last)
	}
	if after, err := affinity.ProcessCPUs(os.Getpid()); err != nil || !after.Equal(before) {
		t.Errorf("driver's mask changed from %s to %s, %v", before, after, err)
	}
}
