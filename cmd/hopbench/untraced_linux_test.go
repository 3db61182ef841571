package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/tracer"
	"github.com/hoplat/hoplat/tracer/tracertest"
)

// Without the capability the tracer needs, hopbench still runs, says once
// why it did not trace, and splits each hop as without a tracer.
func TestIntegrationUnprivilegedSaysWhyNotTraced(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs hopbench as nobody, which takes root")
	}
	cmd, tmp := hopbench(t, "--paths", "direct,epoll", "--transports", "tcp", "--placement", "same-core",
		"--time", "100ms", "--warmup", "20ms", "--runs", "2", "--discard", "0", "--format", "json")
	// nobody cannot run the binaries where they were built when the
	// checkout sits in a 0700 folder (a home directory): it runs copies,
	// which find each other next to hopbench.
	var bins []string
	for _, name := range []string{"hopbench", "pongd", "pingpong", "hoprelay"} {
		bins = append(bins, peer.Hoplat(t, name))
	}
	cmd.Path = filepath.Join(peer.ForEveryone(t, bins...), "hopbench")
	cmd.Args[0] = cmd.Path
	// nobody must write its sockets there: TempDir makes its directories
	// 0700.
	if err := os.Chmod(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	for d := filepath.Dir(tmp); d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hopbench as nobody: %v\n%s", err, stderr.String())
	}
	var rep hop.Report
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Tracer == nil || rep.Tracer.On || !strings.Contains(rep.Tracer.Note, "needs root or CAP_BPF") {
		t.Errorf("tracer %+v, want off because of the capability", rep.Tracer)
	}
	if n := strings.Count(stderr.String(), "not traced: "); n != 1 {
		t.Errorf("progress says why not traced %d times, want once:\n%s", n, stderr.String())
	}
	for _, p := range rep.Paths {
		if p.Trace != nil {
			t.Errorf("%s: traced as nobody", p.Name)
		}
		if d := p.Decomposition; p.Relay != hop.Direct && (d == nil || d.Method == "trace" || !strings.Contains(d.Note, "not traced: ")) {
			t.Errorf("%s: decomposition %+v, want the fallback saying why", p.Name, d)
		}
	}
}

// As root, hopbench --out writes trace.json, a waterfall of the traced
// requests that a viewer opens: it passes the structure check, and the
// report's relay paths are split by their traces.
func TestIntegrationTraceJSON(t *testing.T) {
	tr, err := tracer.Open(tracer.Config{})
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	out := t.TempDir()
	rep, _ := runJSON(t, "--paths", "direct,epoll", "--transports", "tcp", "--placement", "same-core",
		"--time", "150ms", "--warmup", "50ms", "--runs", "2", "--discard", "0", "--out", out)
	b, err := os.ReadFile(filepath.Join(out, "trace.json"))
	if err != nil {
		t.Fatal(err)
	}
	slices, flows, err := tracertest.CheckWaterfall(b)
	if err != nil || slices == 0 || flows == 0 {
		t.Errorf("trace.json: %d slices, %d flows: %v", slices, flows, err)
	}
	for _, p := range rep.Paths {
		if p.Trace == nil {
			t.Errorf("%s: not traced", p.Name)
		} else if p.Relay != hop.Direct && (p.Decomposition == nil || p.Decomposition.Method != "trace") {
			t.Errorf("%s: decomposition %+v, want method trace", p.Name, p.Decomposition)
		}
	}
}
