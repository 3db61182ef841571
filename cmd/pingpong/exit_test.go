package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os/exec"
	"strings"
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

// TestSignalExit runs the binary: SIGINT and SIGTERM mid-run exit 128+N,
// as a shell reports a command the signal stopped.
func TestSignalExit(t *testing.T) {
	_, addrs := pongd(t)
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		cmd := exec.Command(peer.Hoplat(t, "pingpong"), "--target", addrs[0], "--time", "30s", "--report-interval", "10ms")
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first progress line: the run is under way, its handler set.
		sc := bufio.NewScanner(stdout)
		for running := false; !running && sc.Scan(); {
			running = strings.HasPrefix(sc.Text(), "[ ")
		}
		if err := cmd.Process.Signal(tc.sig); err != nil {
			t.Fatal(err)
		}
		// Wait may close the pipe only after the last read: drain it to
		// EOF (pingpong exiting) first.
		done := make(chan error, 1)
		go func() {
			io.Copy(io.Discard, stdout)
			done <- cmd.Wait()
		}()
		select {
		case err = <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: pingpong still running 20s later", tc.sig)
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != tc.code {
			t.Errorf("%v: %v, want exit status %d\n%s", tc.sig, err, tc.code, stderr.String())
		}
		if !strings.Contains(stderr.String(), "pingpong: interrupted") {
			t.Errorf("%v: stderr %q", tc.sig, stderr.String())
		}
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
