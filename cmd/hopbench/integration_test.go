package main

// Integration tests: the real hopbench driving the real pongd, pingpong and
// hoprelay (and socat and HAProxy when installed). They skip until those
// binaries exist on this branch, or fail under HOPLAT_REQUIRE_INTEGRATION.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
)

// hopbench returns a command running the real hopbench with args, with the
// components it drives on PATH and a private TMPDIR (returned) for its
// sockets.
func hopbench(t *testing.T, args ...string) (*exec.Cmd, string) {
	t.Helper()
	var dirs []string
	for _, name := range []string{"pongd", "pingpong", "hoprelay"} {
		_, built := os.Stat(filepath.Join(os.Getenv("HOPLAT_BIN"), name))
		if _, src := os.Stat(filepath.Join("..", name)); src != nil && (os.Getenv("HOPLAT_BIN") == "" || built != nil) {
			peer.Unavailable(t, "cmd/"+name+" is not on this branch yet")
		}
		dirs = append(dirs, filepath.Dir(peer.Hoplat(t, name)))
	}
	bin := peer.Hoplat(t, "hopbench")
	tmp := t.TempDir()
	cmd := exec.Command(bin, args...)
	// A probe of five rounds a figure, not fifteen: the tests run hopbench
	// dozens of times, and check what the probe gives, not its precision.
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PATH="+strings.Join(dirs, ":")+":"+os.Getenv("PATH"), ProbeRoundsEnv+"=5")
	return cmd, tmp
}

func runJSON(t *testing.T, args ...string) (*hop.Report, []byte) {
	t.Helper()
	cmd, tmp := hopbench(t, append([]string{"--format", "json", "-q"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hopbench %v: %v\n%s", args, err, stderr.String())
	}
	if err := hoptest.CheckExplained(out); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	var rep hop.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	noneLeft(t, tmp)
	return &rep, out
}

// noneLeft checks that no socket file or temp dir remains in tmp and no
// process still names it on its command line.
func noneLeft(t *testing.T, tmp string) {
	t.Helper()
	ents, _ := os.ReadDir(tmp)
	for _, e := range ents {
		t.Errorf("left in TMPDIR: %s", e.Name())
	}
	procs, _ := os.ReadDir("/proc")
	for _, p := range procs {
		if _, err := strconv.Atoi(p.Name()); err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", p.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(tmp)) {
			t.Errorf("process %s left running: %s", p.Name(), bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
	}
}

func TestIntegrationDefaultShort(t *testing.T) {
	out := t.TempDir()
	rep, _ := runJSON(t, "--time", "100ms", "--warmup", "20ms", "--runs", "3", "--discard", "1", "--out", out)
	names := map[string]bool{}
	regimes := map[string]int{}
	for _, p := range rep.Paths {
		// The default runs every path packed and spread, and names say which.
		names[strings.TrimSuffix(p.Name, " "+p.Regime)] = true
		if p.Connect == nil || p.Connect.N < 2 || p.Connect.P99Us < p.Connect.P50Us {
			t.Errorf("%s: connect-only series %+v, want many connects", p.Name, p.Connect)
		}
		regimes[p.Regime]++
		// On a loaded machine a reply now and then waits out a
		// retransmission timeout (200 ms) and its round completes
		// nothing; the driver counts it failed. One such round of three
		// is the machine's, more is the code's.
		if p.TPS <= 0 || p.Errors != 0 || p.Failed > 1 {
			t.Errorf("%s: tps %v errors %d failed rounds %d", p.Name, p.TPS, p.Errors, p.Failed)
		} else if p.Failed > 0 {
			t.Logf("%s: %d failed round: %+v", p.Name, p.Failed, p.Rounds)
		}
	}
	for _, want := range []string{"direct tcp", "direct unix", "goroutine tcp->tcp", "epoll unix->tcp", "splice tcp->tcp"} {
		if !names[want] {
			t.Errorf("no row for %s", want)
		}
	}
	if regimes[driver.RegimePacked] == 0 || regimes[driver.RegimePacked] != regimes[driver.RegimeSpread] && runtime.NumCPU() > 1 {
		t.Errorf("paths per regime %v, want every path packed and spread", regimes)
	}
	skipped := map[string]bool{}
	for _, s := range rep.Skipped {
		skipped[s.Path] = true
	}
	for _, peerPath := range []struct{ prog, path string }{{"socat", "socat tcp->tcp"}, {"haproxy", "haproxy tcp->tcp"}} {
		_, err := peer.Find(peerPath.prog)
		if (err == nil) != names[peerPath.path] || (err != nil) != skipped[peerPath.path] {
			t.Errorf("%s installed %v: row %v, skipped %v", peerPath.prog, err == nil, names[peerPath.path], skipped[peerPath.path])
		}
	}
	noVerdictWithinTheNoise(t, rep)
	for _, f := range []string{"report.json", "report.csv", "spectrum.png", "spectrum.svg", "added.png", "added.svg", "decomposition.png", "decomposition.svg", "direct_tcp_packed_t1.hgrm"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("--out %s: %v", f, err)
		}
	}
}

// noVerdictWithinTheNoise checks the real run's verdicts: a hop whose
// added p50 has a 95% interval spanning zero is said to make no
// measurable difference, and is given no cost.
func noVerdictWithinTheNoise(t *testing.T, rep *hop.Report) {
	t.Helper()
	for _, p := range rep.Paths {
		a := p.AddedUs
		if a == nil || p.Relay == hop.Direct || p.ClientTransport != hop.TCP || p.Hops != 1 || a.CI95P50[0] > 0 || a.CI95P50[1] < 0 {
			continue
		}
		cost := regexp.MustCompile(`^` + p.Regime + `: hop cost .*\b` + string(p.Relay) + ` [0-9]`)
		none := regexp.MustCompile(`^` + p.Regime + `: no measurable difference from direct tcp: .*\b` + string(p.Relay) + `\b`)
		var said bool
		for _, v := range rep.Verdicts {
			if cost.MatchString(v) {
				t.Errorf("%s: CI %v spans zero, yet a verdict gives it a cost: %s", p.Name, a.CI95P50, v)
			}
			said = said || none.MatchString(v)
		}
		if !said {
			t.Errorf("%s: CI %v spans zero and no verdict says no measurable difference: %q", p.Name, a.CI95P50, rep.Verdicts)
		}
	}
}

func TestIntegrationChainSweep(t *testing.T) {
	rep, _ := runJSON(t, "--hops", "0,1,2", "--paths", "direct,epoll", "--transports", "tcp", "--placement", "same-core",
		"--time", "150ms", "--warmup", "20ms", "--runs", "2", "--discard", "0")
	if len(rep.Chains) != 1 {
		t.Fatalf("chains %+v", rep.Chains)
	}
	c := rep.Chains[0]
	if c.Relay != hop.Epoll || len(c.Hops) != 3 || c.PerHopUs <= 0 {
		t.Errorf("chain %+v", c)
	}
}

func TestIntegrationThreadSweep(t *testing.T) {
	cmd, tmp := hopbench(t, "--threads", "1,4", "--paths", "direct,goroutine", "--transports", "tcp", "--placement", "none",
		"--time", "150ms", "--warmup", "20ms", "--runs", "2", "--discard", "0", "-q")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	noneLeft(t, tmp)
	for _, want := range []string{"Threads: 1 Mean:", "Threads: 4 Mean:", "goroutine tcp->tcp"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A real MariaDB behind the same paths: direct over TCP and its UNIX
// socket, and through a relay.
func TestIntegrationRealBackend(t *testing.T) {
	peer.Require(t, "mariadbd")
	srv := mariadbtest.Start(t)
	backend := fmt.Sprintf("mysql://%s:%s@%s/%s?socket=%s", srv.User, srv.Password, srv.Addr, srv.DB, srv.Socket)
	rep, _ := runJSON(t, "--backend", backend, "--command", "point-select", "--paths", "direct,epoll", "--placement", "same-core",
		"--time", "200ms", "--warmup", "50ms", "--runs", "2", "--discard", "0")
	if len(rep.Paths) != 4 {
		t.Fatalf("%d paths, want direct and epoll on both client legs", len(rep.Paths))
	}
	for _, p := range rep.Paths {
		if p.TPS <= 0 || p.Errors != 0 || p.Failed != 0 {
			t.Errorf("%s: tps %v errors %d failed rounds %d: %+v", p.Name, p.TPS, p.Errors, p.Failed, p.Rounds)
		}
	}
	if strings.Contains(rep.Config.Backend, srv.Password) && srv.Password != "" {
		t.Errorf("report shows the password: %s", rep.Config.Backend)
	}
}
