package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/stats"
)

// pongd starts the responder binary on a TCP port and a UNIX path and
// returns its process and the addresses it printed once bound.
func pongd(t *testing.T, args ...string) (*exec.Cmd, []string) {
	t.Helper()
	sock := filepath.Join(t.TempDir(), "p.sock")
	cmd := exec.Command(peer.Hoplat(t, "pongd"), append([]string{"--listen", "tcp:127.0.0.1:0", "--listen", "unix:" + sock}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	var addrs []string
	sc := bufio.NewScanner(out)
	for len(addrs) < 2 && sc.Scan() {
		a, ok := strings.CutPrefix(sc.Text(), "listening ")
		if !ok {
			t.Fatalf("pongd printed %q before it was ready", sc.Text())
		}
		addrs = append(addrs, a)
	}
	if len(addrs) != 2 || !strings.HasPrefix(addrs[0], "tcp:127.0.0.1:") || addrs[1] != "unix:"+sock {
		t.Fatalf("pongd listening on %q", addrs)
	}
	return cmd, addrs
}

func TestEndToEnd(t *testing.T) {
	_, addrs := pongd(t, "--io", "blocking", "--service-time", "1us")
	for _, a := range addrs {
		var out, errOut bytes.Buffer
		hgrm := filepath.Join(t.TempDir(), "lat.hgrm")
		err := run([]string{"--target", a, "--time", "150ms", "--io", "blocking", "--format", "json", "--hgrm", hgrm, "--threads", "1;2"}, &out, &errOut)
		if err != nil {
			t.Fatalf("%s: %v\n%s", a, err, errOut.String())
		}
		var doc struct {
			Schema  string
			Config  map[string]any
			Results []struct {
				Threads   int
				Errors    int64
				Histogram string
				Latency   struct{ P50 float64 } `json:"latency_us"`
			}
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		if doc.Schema != report.SchemaPingpong || doc.Config["target"] != a || len(doc.Results) != 2 {
			t.Fatalf("%s: schema %q config %v, %d results", a, doc.Schema, doc.Config, len(doc.Results))
		}
		for _, r := range doc.Results {
			h, err := stats.DecodeHistogram(r.Histogram)
			if err != nil || h.Count() == 0 || r.Errors != 0 || r.Latency.P50 <= 0 {
				t.Errorf("%s threads %d: histogram %v (%v), errors %d, p50 %v", a, r.Threads, h, err, r.Errors, r.Latency.P50)
			}
			if _, err := os.Stat(strings.TrimSuffix(hgrm, ".hgrm") + ".t" + []string{"", "1", "2"}[r.Threads] + ".hgrm"); err != nil {
				t.Errorf("hgrm: %v", err)
			}
		}
	}
}

// TestPongdSignal: SIGTERM closes the listeners, removes the UNIX path and
// exits 0.
func TestPongdSignal(t *testing.T) {
	cmd, addrs := pongd(t)
	path := strings.TrimPrefix(addrs[1], "unix:")
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("pongd after SIGTERM: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there: %v", path, err)
	}
}

// TestPeerDies: pongd killed mid-run is a failed run (exit 1) whose report
// still prints, with the errors counted.
func TestPeerDies(t *testing.T) {
	cmd, addrs := pongd(t)
	pr, pw := io.Pipe()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(pr)
		killed := false
		for sc.Scan() {
			if !killed && strings.HasPrefix(sc.Text(), "[ ") {
				cmd.Process.Kill()
				killed = true
			}
		}
	}()
	var out bytes.Buffer
	err := run([]string{"--target", addrs[0], "--time", "400ms", "--report-interval", "50ms"}, io.MultiWriter(&out, pw), io.Discard)
	pw.Close()
	wg.Wait()
	if err == nil || cli.IsUsage(err) || !strings.Contains(err.Error(), "errors") {
		t.Fatalf("run = %v, want a failure counting errors", err)
	}
	if !strings.Contains(out.String(), "Latency (us)") {
		t.Errorf("no report printed:\n%s", out.String())
	}
}

// A target where nothing listens is the user's to fix, as a bad flag
// value is (exit 2): the error names the --target typed.
func TestRefused(t *testing.T) {
	for _, target := range []string{"unix:" + filepath.Join(t.TempDir(), "none.sock"), "tcp:127.0.0.1:1"} {
		err := run([]string{"--target", target, "--time", "1s"}, io.Discard, io.Discard)
		if err == nil || !cli.IsUsage(err) {
			t.Errorf("%s: run = %v, want a usage error", target, err)
			continue
		}
		if want := "--target " + strconv.Quote(target) + ": "; !strings.HasPrefix(err.Error(), want) ||
			!strings.Contains(err.Error(), "nothing listens there") {
			t.Errorf("%s: %v, want it to begin %s and say nothing listens there", target, err, want)
		}
	}
}

// TestFlagErrors: every value that makes no sense is a usage error (exit 2)
// naming the flag.
func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{}, "--target"},
		{[]string{"--target", "tcp:localhost"}, "--target"},
		{[]string{"--target", "TCP4-LISTEN:4000"}, "--target"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--threads", "0"}, "--threads"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--threads", "1,x"}, "--threads"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--io", "epoll"}, "--io"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--proto", "http"}, "--proto"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--size", "4"}, "--size"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--time", "0s"}, "--time"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--warmup", "-1s"}, "--warmup"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--runs", "0"}, "--runs"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--runs", "2", "--discard", "2"}, "--discard"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--rate", "-1"}, "--rate"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--report-interval", "-1s"}, "--report-interval"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--connect-timeout", "-1s"}, "--connect-timeout"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--format", "xml"}, "--format"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--cpus", "9999"}, "--cpus"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--nosuch"}, "nosuch"},
		{[]string{"--target", "tcp:127.0.0.1:1", "extra"}, "extra"},
		{[]string{"--target", "unix:/nonexistent/p.sock", "--rx-stamps"}, "--rx-stamps"},
		{[]string{"--target", "tcp:127.0.0.1:1", "--proto", "mysql", "--user", "u", "--connect-only", "--rx-stamps"}, "--rx-stamps"},
	} {
		err := run(tc.args, io.Discard, io.Discard)
		if !cli.IsUsage(err) || !strings.Contains(err.Error(), tc.flag) {
			t.Errorf("%q: %v, want a usage error naming %s", tc.args, err, tc.flag)
		}
	}
}

// TestPongdFlagErrors runs the binary: bad values exit 2, naming the flag.
func TestPongdFlagErrors(t *testing.T) {
	bin := peer.Hoplat(t, "pongd")
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{}, "--listen"},
		{[]string{"--listen", "tcp:127.0.0.1:0", "--proto", "http"}, "--proto"},
		{[]string{"--listen", "TCP4-LISTEN:1,nodelya"}, "--listen"},
		{[]string{"--listen", "tcp:127.0.0.1:0", "--io", "uring"}, "--io"},
		{[]string{"--listen", "tcp:127.0.0.1:0", "--service-time", "-1ms"}, "--service-time"},
		{[]string{"--listen", "tcp:127.0.0.1:0", "--service-mode", "yield"}, "--service-mode"},
		{[]string{"--listen", "tcp:127.0.0.1:0", "--cpus", "x"}, "--cpus"},
	} {
		out, err := exec.Command(bin, tc.args...).CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), tc.flag) {
			t.Errorf("pongd %q: %v %q, want exit 2 naming %s", tc.args, err, out, tc.flag)
		}
	}
}
