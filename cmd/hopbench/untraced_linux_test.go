package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/results/hop"
)

// Without the capability the tracer needs, hopbench still runs, says once
// why it did not trace, and splits each hop as without a tracer.
func TestIntegrationUnprivilegedSaysWhyNotTraced(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("runs hopbench as nobody, which takes root")
	}
	cmd, tmp := hopbench(t, "--paths", "direct,epoll", "--transports", "tcp", "--placement", "same-core",
		"--time", "100ms", "--warmup", "20ms", "--runs", "2", "--discard", "0", "--format", "json")
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
