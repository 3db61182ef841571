package main

// Integration tests of topology runs: hopbench brings up network
// namespaces (which needs root), places the components in them, and
// removes everything at the end, Ctrl-C included.

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/results/hop/hoptest"
)

// needNetns skips (or fails, under HOPLAT_REQUIRE_INTEGRATION) a test that
// creates namespaces where it cannot.
func needNetns(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		peer.Unavailable(t, "netns topologies need root: ip netns add is privileged")
	}
	peer.Require(t, "ip")
}

// appDB is MXS-1515's two hosts as namespaces: the client and the relays
// in app, pongd in db.
const appDB = `HOST_APP="netns:app"
HOST_DB="netns:db"
CLIENT_HOST=app
RELAY_HOST=app
SERVER_HOST=db
`

// topologyLeft checks that hopbench run pid left no namespace, no veth in
// this namespace, and no process that inherited the TMPDIR it was given.
func topologyLeft(t *testing.T, pid int, tmp string) {
	t.Helper()
	prefix := "hoplat-" + strconv.Itoa(pid) + "-"
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatalf("ip netns list: %v", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, prefix) {
			t.Errorf("namespace left behind: %s", line)
		}
	}
	out, err = exec.Command("ip", "-o", "link", "show", "type", "veth").Output()
	if err != nil {
		t.Fatalf("ip link: %v", err)
	}
	if bytes.Contains(out, []byte("hoplat")) {
		t.Errorf("veth left behind: %s", out)
	}
	// Every component inherits hopbench's environment, ip netns exec
	// included, whatever namespace it ended up in.
	mark := []byte("TMPDIR=" + tmp + "\x00")
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", p.Name(), "environ"))
		if err == nil && bytes.Contains(env, mark) {
			cmdline, _ := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
			t.Errorf("process %s left running: %s", p.Name(), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}

func TestIntegrationTopologyNetns(t *testing.T) {
	needNetns(t)
	file := filepath.Join(t.TempDir(), "mxs.conf")
	if err := os.WriteFile(file, []byte(appDB), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, tmp := hopbench(t, "--topology", file, "--paths", "direct,epoll", "--transports", "tcp",
		"--runs", "2", "--discard", "0", "--time", "300ms", "--format", "json", "-q")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hopbench: %v\n%s", err, stderr.String())
	}
	rep := decodeReport(t, out)
	if len(rep.Hosts) != 2 || rep.Hosts[0].Name != "app" || rep.Hosts[0].Address != "10.77.0.1" ||
		rep.Hosts[1].Name != "db" || rep.Hosts[1].Kind != "netns" || rep.Hosts[1].Address != "10.77.0.2" || rep.Hosts[1].Env == nil {
		t.Errorf("hosts %+v", rep.Hosts)
	}
	if len(rep.Paths) != 2 {
		t.Fatalf("paths %+v", rep.Paths)
	}
	for _, p := range rep.Paths {
		if p.LatencyUs.P50 <= 0 || p.Errors != 0 || p.Failed != 0 {
			t.Errorf("%s: p50 %v errors %d failed %d %+v", p.Name, p.LatencyUs.P50, p.Errors, p.Failed, p.Rounds)
		}
		h := p.Hosts
		if h == nil || h.Client != "app" || h.Server != "db" || (h.Relay == "app") == (p.Relay == driver.Direct) {
			t.Errorf("%s: hosts %+v", p.Name, h)
		}
	}
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
}

// Ctrl-C mid-run: every component stopped, the namespaces and their veths
// deleted, exit status 130.
func TestIntegrationTopologyInterrupt(t *testing.T) {
	needNetns(t)
	file := filepath.Join(t.TempDir(), "mxs.conf")
	if err := os.WriteFile(file, []byte(appDB+"PATHS=direct;epoll;socat\nTRANSPORTS=tcp;unix\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd, tmp := hopbench(t, "--topology", file, "--time", "5s", "--runs", "2")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first round's progress line begins once every component is up
	// in its namespace and the client is measuring.
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte("round 1/")) {
		n, err := stderr.Read(buf)
		if err != nil {
			t.Fatalf("hopbench ended before its first round: %v\n%s", err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	t.Logf("interrupting after:\n%s", seen)
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	var rest bytes.Buffer
	go func() {
		io.Copy(&rest, stderr)
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("hopbench did not stop within 30s of SIGINT")
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 130 {
		t.Errorf("exit %v, want status 130\n%s", err, rest.String())
	}
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
}

func decodeReport(t *testing.T, out []byte) *driver.Report {
	t.Helper()
	if err := hoptest.CheckJSON(out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep driver.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	return &rep
}
