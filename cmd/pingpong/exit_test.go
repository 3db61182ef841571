package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
)

// TestHgrmCheckedFirst runs the binary: an --hgrm file that cannot be
// created is a usage error (exit 2) before any load. The target is live and
// the run 30 s long, so a check made only after the run would show as exit
// 1 much later, with a report on stdout.
func TestHgrmCheckedFirst(t *testing.T) {
	_, addrs := pongd(t)
	for _, hgrm := range []string{"/nonexistent/x", t.TempDir()} {
		cmd := exec.Command(peer.Hoplat(t, "pingpong"), "--target", addrs[0], "--time", "30s", "--hgrm", hgrm)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("--hgrm %s: %v, want exit status 2", hgrm, err)
		}
		if len(out) != 0 {
			t.Errorf("--hgrm %s: a report was printed, so the run happened:\n%s", hgrm, out)
		}
		if msg := stderr.String(); !strings.HasPrefix(msg, "pingpong: --hgrm "+hgrm+": ") || strings.Count(msg, "\n") != 1 {
			t.Errorf("--hgrm %s: stderr %q, want one line naming the flag", hgrm, msg)
		}
	}
}

// TestSignalReport runs the binary: SIGINT and SIGTERM in the middle of
// a 10 s run exit 128+N, as a shell reports a command the signal stopped,
// within a few seconds, and still print the report of what was measured up
// to the signal (and write --hgrm), marked partial: text and JSON.
func TestSignalReport(t *testing.T) {
	_, addrs := pongd(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
		name string
	}{{syscall.SIGINT, 130, "SIGINT"}, {syscall.SIGTERM, 143, "SIGTERM"}} {
		for _, format := range []string{"text", "json"} {
			t.Run(tc.name+"/"+format, func(t *testing.T) {
				hgrm := filepath.Join(t.TempDir(), "lat.hgrm")
				out, stderr, err := signalMidRun(t, tc.sig, "--target", addrs[0], "--time", "10s",
					"--report-interval", "10ms", "--format", format, "--hgrm", hgrm)
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
					t.Fatalf("%v, want exit status %d\n%s", err, tc.code, stderr)
				}
				if want := "pingpong: interrupted by " + tc.name + "\n"; !strings.HasSuffix(stderr, want) {
					t.Errorf("stderr %q, want it to end %q", stderr, want)
				}
				if fi, err := os.Stat(hgrm); err != nil || fi.Size() == 0 {
					t.Errorf("--hgrm: %v, want the histogram of what was measured", err)
				}
				reason := "interrupted by " + tc.name + " after "
				if format == "json" {
					checkPartialJSON(t, out, reason)
				} else {
					checkPartialText(t, out, reason)
				}
			})
		}
	}
}

// signalMidRun starts pingpong with args, sends sig once a progress line
// shows round trips measured, and returns its stdout (the progress lines
// left out), its stderr and Wait's error, failing t if it is still running
// 5 s after the signal.
func signalMidRun(t *testing.T, sig syscall.Signal, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	cmd := exec.Command(peer.Hoplat(t, "pingpong"), args...)
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Progress goes to stdout with a text report, to stderr with JSON.
	progress := make(chan struct{})
	var once sync.Once
	var outBuf, errBuf strings.Builder
	scan := func(r io.Reader, b *strings.Builder, done chan<- struct{}) {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(line, "[ ") {
				if !strings.Contains(line, " tps: 0.00 ") {
					once.Do(func() { close(progress) })
				}
				continue
			}
			b.WriteString(line + "\n")
		}
		close(done)
	}
	outDone, errDone := make(chan struct{}), make(chan struct{})
	go scan(outPipe, &outBuf, outDone)
	go scan(errPipe, &errBuf, errDone)
	select {
	case <-progress:
	case <-errDone:
		t.Fatalf("pingpong ended before measuring anything: %s", errBuf.String())
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pingpong measured nothing in 30s")
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	// Wait may close the pipes only after the last read: both read to
	// EOF (pingpong exiting) first.
	done := make(chan error, 1)
	go func() {
		<-outDone
		<-errDone
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(5 * time.Second): // a bound on a wait: the report is written in ms
		cmd.Process.Kill()
		<-done
		t.Fatalf("%v: pingpong still running 5s later\n%s", sig, errBuf.String())
	}
	return outBuf.String(), errBuf.String(), err
}

// checkPartialText wants a text report that says first it is partial, why
// (reason), and that its last run is cut short, with requests measured in
// less than the 10 s asked; its head within 100 columns; one run's CI n/a.
func checkPartialText(t *testing.T, out, reason string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if !strings.HasPrefix(lines[0], "partial: "+reason) || !strings.HasSuffix(lines[0], " of 10s; the last run is cut short") {
		t.Errorf("first line %q, want \"partial: %s... of 10s; the last run is cut short\"", lines[0], reason)
	}
	for _, l := range lines {
		if l == "" {
			break // the head ends at the first blank line
		}
		if len(l) > 100 {
			t.Errorf("head line of %d columns: %q", len(l), l)
		}
	}
	if !strings.Contains(out, "; run 0 cut short after ") || !strings.Contains(out, "tps 95% CI of mean:            n/a (one run)\n") {
		t.Errorf("no cut-short run 0 or one run's CI n/a:\n%s", out)
	}
	var events int64
	var secs float64
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case len(f) == 5 && f[0] == "total" && f[3] == "events:":
			events, _ = strconv.ParseInt(f[4], 10, 64)
		case len(f) == 3 && f[0] == "total" && f[1] == "time:":
			secs, _ = strconv.ParseFloat(strings.TrimSuffix(f[2], "s"), 64)
		}
	}
	if events <= 0 || secs <= 0 || secs >= 10 {
		t.Errorf("total events %d in %v s; want some, in under 10 s:\n%s", events, secs, out)
	}
}

// checkPartialJSON wants a JSON report marked partial with reason, and
// one step of one run, marked partial, with requests measured in less than
// the 10 s asked.
func checkPartialJSON(t *testing.T, out, reason string) {
	t.Helper()
	var doc struct {
		Schema        string `json:"schema"`
		Partial       bool   `json:"partial"`
		PartialReason string `json:"partial_reason"`
		Results       []struct {
			Transactions int64   `json:"transactions"`
			ElapsedS     float64 `json:"elapsed_s"`
			Runs         []struct {
				Partial  bool    `json:"partial"`
				Events   int64   `json:"events"`
				ElapsedS float64 `json:"elapsed_s"`
			} `json:"runs"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if doc.Schema != "hoplat.pingpong.v1" || !doc.Partial || !strings.HasPrefix(doc.PartialReason, reason) ||
		!strings.HasSuffix(doc.PartialReason, " of 10s") {
		t.Errorf("schema %q, partial %v, partial_reason %q; want partial, %q... of 10s", doc.Schema, doc.Partial, doc.PartialReason, reason)
	}
	if len(doc.Results) != 1 || len(doc.Results[0].Runs) != 1 {
		t.Fatalf("results %+v, want one step of one run", doc.Results)
	}
	s, r := doc.Results[0], doc.Results[0].Runs[0]
	// The signal comes at the first progress line that shows round trips
	// (every 10 ms): a run cut there measured less than the 10 s asked, by
	// construction, unless the signal took seconds to arrive.
	if !r.Partial || r.Events <= 0 || r.ElapsedS <= 0 || r.ElapsedS >= 10 || s.Transactions != r.Events || s.ElapsedS != r.ElapsedS {
		t.Errorf("step %d events in %v s, run %+v; want the run partial, some events, under 10 s", s.Transactions, s.ElapsedS, r)
	}
}

// TestSecondSignal runs the binary: a second SIGINT ends pingpong at once,
// killed by the signal, while the first still waits for a worker (the
// pacer of an open loop at one request per 10 s sleeps to its next send).
func TestSecondSignal(t *testing.T) {
	_, addrs := pongd(t)
	cmd := exec.Command(peer.Hoplat(t, "pingpong"), "--target", addrs[0], "--time", "10s", "--rate", "0.1",
		"--report-interval", "10ms")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first progress line: the run is under way, its handler set.
	sc := bufio.NewScanner(stdout)
	for running := false; !running && sc.Scan(); {
		running = strings.HasPrefix(sc.Text(), "[ ")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	// pingpong's note that it took the first: the default action is
	// back for the second.
	esc := bufio.NewScanner(stderr)
	for noted := false; !noted; {
		if !esc.Scan() {
			t.Fatal("pingpong ended without a note of the first signal")
		}
		noted = strings.HasPrefix(esc.Text(), "pingpong: SIGINT: writing the report")
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		io.Copy(io.Discard, stdout)
		io.Copy(io.Discard, stderr)
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(3 * time.Second): // a bound on a wait: SIGINT's default action is at once
		cmd.Process.Kill()
		<-done
		t.Fatal("pingpong still running 3s after the second SIGINT")
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGINT {
		t.Errorf("%v, want killed by SIGINT", err)
	}
}

// TestErrorsReadOnce runs the binaries: a mistake a newcomer makes first
// is one line on stderr naming the flag and the value typed, with a hint
// where the mistake is common, exit 2; pongd says nothing else before it.
func TestErrorsReadOnce(t *testing.T) {
	// A port nothing listens on: the errors must come before any dial.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "tcp:" + ln.Addr().String()
	ln.Close()
	for _, tc := range []struct {
		bin  string
		args []string
		want string
	}{
		{"pingpong", []string{"--target", closed, "--threads", "0"}, `pingpong: --threads "0": want at least 1`},
		{"pingpong", []string{"--target", closed, "--threads", "-3"}, `pingpong: --threads "-3": a negative number or a range with no start (ranges read LO-HI, as 1-4)`},
		{"pingpong", []string{"--target", "127.0.0.1:7000"}, `pingpong: --target "127.0.0.1:7000": no address type; did you mean tcp:127.0.0.1:7000?`},
		{"pingpong", []string{"--target", closed, "--io", "fast"}, `pingpong: --io "fast": want auto, netpoll, blocking or spin`},
		{"pongd", []string{"--listen", "tcp:127.0.0.1:0", "--proto", "bogus"}, `pongd: --proto "bogus": want echo or mysql`},
		{"pongd", []string{"--listen", "127.0.0.1:0"}, `pongd: --listen "127.0.0.1:0": no address type; did you mean tcp:127.0.0.1:0?`},
	} {
		cmd := exec.Command(peer.Hoplat(t, tc.bin), tc.args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(out) != 0 {
			t.Errorf("%s %q: %v, stdout %q; want exit status 2 and no output", tc.bin, tc.args, err, out)
		}
		if got := stderr.String(); got != tc.want+"\n" {
			t.Errorf("%s %q: stderr\n%q, want the one line\n%q", tc.bin, tc.args, got, tc.want)
		}
	}
}
