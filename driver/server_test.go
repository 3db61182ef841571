package driver

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// startExternal starts a server as a user's database would be: not by
// hopbench, listening on a loopback port, and returns its address.
func startExternal(t *testing.T) (*exec.Cmd, sockets.Addr) {
	t.Helper()
	cmd := exec.Command(filepath.Join(fakeBin(t), "pongd"), "--listen", "tcp:127.0.0.1:0")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("external server: %v", err)
	}
	a, err := sockets.Parse(strings.TrimSpace(strings.TrimPrefix(line, "listening ")))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, a
}

// A backend hopbench did not start is reported where it really runs: its
// CPUs read back from its process, never the regime's claim; with
// BackendCPUs it is pinned for the run and put back after.
func TestRunReportsAnExternalServerWhereItRuns(t *testing.T) {
	cpus, err := affinity.ThreadCPUs()
	if err != nil || cpus.Len() < 2 {
		t.Skip("needs two CPUs")
	}
	cmd, addr := startExternal(t)
	pid := cmd.Process.Pid
	orig, err := affinity.ProcessCPUs(pid)
	if err != nil {
		t.Fatal(err)
	}
	backend, err := ParseBackend(fmt.Sprintf("mysql://u:p@127.0.0.1:%d/d", addr.Port))
	if err != nil {
		t.Fatal(err)
	}
	last := affinity.NewCPUSet(cpus.CPUs()[cpus.Len()-1])
	for _, tc := range []struct {
		pin    affinity.CPUSet
		want   string // the server's CPUs in the path's placement
		pinned bool   // by --backend-cpus
	}{
		{affinity.CPUSet{}, orig.String(), false},
		{last, last.String(), true},
	} {
		cfg := shortConfig(t, hop.Direct)
		cfg.Transports = []hop.Transport{hop.TCP}
		cfg.Backend, cfg.BackendCPUs = backend, tc.pin
		cfg.ConnectTime = -1
		packed, err := affinity.ParsePlacement("same-core", cpus)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Regimes = []Regime{{Name: RegimePacked, Placement: packed}}
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		places := rep.Regimes[0].Places
		if s := places.Server; s == nil || *s != (hop.ServerPlace{PID: pid, Comm: "pongd", CPUs: tc.want, Pinned: tc.pinned}) ||
			slices.ContainsFunc(places.Components, func(c hop.ComponentCPUs) bool { return c.Component == roles.Server }) {
			t.Errorf("pin %q: regime places %+v do not say where the server runs", tc.pin, places)
		}
		if got := rep.Paths[0].Placement[roles.Server]; got != tc.want {
			t.Errorf("pin %q: path placement of the server %q, want %q", tc.pin, got, tc.want)
		}
		if got, _ := affinity.ProcessCPUs(pid); !got.Equal(orig) {
			t.Errorf("pin %q: after the run the server may use %s, want its own %s back", tc.pin, got, orig)
		}
	}

	// One that no process here serves cannot be pinned, and says why.
	cmd.Process.Kill()
	cmd.Wait()
	cfg := shortConfig(t, hop.Direct)
	cfg.Backend, cfg.BackendCPUs = backend, last
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "no process here listens") {
		t.Errorf("pinning a backend nobody serves: %v", err)
	}
	remote, _ := ParseBackend("mysql://u:p@db.example:3306/d")
	sp, err := placeServer(remote, affinity.CPUSet{})
	if err != nil || sp.cpus != ServerExternal || !sp.place().External {
		t.Errorf("a remote backend: %+v, %v; want external", sp, err)
	}
}
