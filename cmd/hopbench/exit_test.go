package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/internal/porttest"
)

// exitOf runs cmd to the end and returns its exit status, stdout and stderr.
func exitOf(t *testing.T, cmd *exec.Cmd) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, stdout.String(), stderr.String()
	case errors.As(err, &ee):
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	t.Fatal(err)
	return 0, "", ""
}

// TestIntegrationEveryRoundFails: a backend that refuses the password
// fails every round. hopbench prints the cause even under
// -q, counts the errors the same way in the table and the verdict, and
// exits 1 rather than passing a table of zeros for a measurement. One
// regime (same-core), so the path names carry none.
func TestIntegrationEveryRoundFails(t *testing.T) {
	peer.Require(t, "mariadbd")
	srv := mariadbtest.Start(t)
	for _, tc := range []struct{ name, backend, cause string }{
		{"wrong password", fmt.Sprintf("mysql://%s:not-the-pw-42@%s/%s", srv.User, srv.Addr, srv.DB), "ERROR 1045 (28000)"},
	} {
		// --verbose: the full report, whose table has the errors column.
		cmd, tmp := hopbench(t, "-q", "--verbose", "--backend", tc.backend, "--paths", "direct", "--transports", "tcp",
			"--time", "100ms", "--warmup", "0s", "--runs", "2", "--discard", "0", "--placement", "same-core")
		code, out, errOut := exitOf(t, cmd)
		noneLeft(t, tmp)
		if code != 1 {
			t.Errorf("%s: exit status %d, want 1\n%s%s", tc.name, code, out, errOut)
		}
		for _, want := range []string{"hopbench: 2 failed rounds; the first, direct tcp (1 threads) round 1: ", tc.cause,
			"hopbench: no successful round on 1 of 1 paths: direct tcp (1 threads)"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", tc.name, want, errOut)
			}
		}
		if strings.Contains(errOut, "not-the-pw-42") || strings.Contains(out, "not-the-pw-42") {
			t.Errorf("%s: the password is printed", tc.name)
		}
		// One count: the table's errors column says 2, and so does the verdict.
		var row string
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "direct tcp ") {
				row = line
			}
		}
		if f := strings.Fields(row); len(f) == 0 || f[len(f)-1] != "2" {
			t.Errorf("%s: table row %q, want 2 errors last", tc.name, row)
		}
		if !strings.Contains(out, "direct tcp (1 threads): 2 errors (2 failed rounds among them)") {
			t.Errorf("%s: the verdict does not count the 2 errors:\n%s", tc.name, out)
		}
	}
}

// TestUnreachableCheckedFirst: a --backend or a running --proxy that
// refuses a connect stops hopbench at once, before the machine is probed
// and any round runs: exit 2 within 2 s, one line naming the flag, the
// address and "connection refused", the password masked.
func TestUnreachableCheckedFirst(t *testing.T) {
	// A backend that takes connections, for the proxy's case: one dial
	// is all hopbench makes of it before it refuses the proxy.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := porttest.Closed(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"backend", []string{"--backend", fmt.Sprintf("mysql://sbtest:not-the-pw-42@127.0.0.1:%d/sbtest", port)},
			fmt.Sprintf("hopbench: --backend mysql://sbtest@127.0.0.1:%d/sbtest: dial tcp 127.0.0.1:%d: ", port, port)},
		{"proxy", []string{"--backend", "mysql://sbtest@" + ln.Addr().String() + "/sbtest", "--proxy", fmt.Sprintf("px=tcp:127.0.0.1:%d", port)},
			fmt.Sprintf("hopbench: --proxy px=tcp:127.0.0.1:%d: dial tcp 127.0.0.1:%d: ", port, port)},
	} {
		cmd, tmp := hopbench(t, append(tc.args, "--paths", "direct", "--runs", "2")...)
		began := time.Now()
		code, out, errOut := exitOf(t, cmd)
		took := time.Since(began)
		noneLeft(t, tmp)
		// A refused connect answers at once; probing the machine or a
		// round, which the check must come before, takes seconds. 2 s
		// parts them on any machine: a process start and a refused dial
		// take tens of ms, loaded or not.
		if code != 2 || out != "" || took > 2*time.Second {
			t.Errorf("%s: exit status %d after %v, stdout %q; want 2 within 2s and no report", tc.name, code, took, out)
		}
		if !strings.HasPrefix(errOut, tc.want) || !strings.HasSuffix(errOut, "connection refused\n") ||
			strings.Count(errOut, "\n") != 1 || strings.Contains(errOut, "not-the-pw-42") {
			t.Errorf("%s: stderr %q, want one line %q...connection refused", tc.name, errOut, tc.want)
		}
	}
}

// TestIntegrationOutCheckedFirst: an --out directory that cannot be made
// fails at once (exit 2, no round run, no report), with hopbench's name
// once in the message.
func TestIntegrationOutCheckedFirst(t *testing.T) {
	cmd, tmp := hopbench(t, "--out", "/proc/x", "--time", "30s")
	code, out, errOut := exitOf(t, cmd)
	noneLeft(t, tmp)
	if code != 2 || out != "" || strings.Contains(errOut, "round ") {
		t.Errorf("exit status %d, stdout %q, stderr %q: want 2, before any round", code, out, errOut)
	}
	if !strings.HasPrefix(errOut, "hopbench: --out /proc/x: ") || strings.Contains(errOut, "hopbench: hopbench:") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("stderr %q, want one line naming --out, hopbench named once", errOut)
	}
}

// signalMidRun starts cmd, sends sig once its first round has begun, and
// waits up to 30s for it to exit: it returns what cmd wrote to stderr after
// the signal and how it ended.
func signalMidRun(t *testing.T, cmd *exec.Cmd, sig syscall.Signal) (string, error) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The first round's progress line begins once every component is up
	// and the client is measuring. A progress line is finished only when
	// its run ends; read what has come so far, not whole lines.
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, []byte("round 1/")) {
		n, err := stderr.Read(buf)
		if err != nil {
			t.Fatalf("%v: hopbench ended before its first round: %v\n%s", sig, err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	t.Logf("sending %v after:\n%s", sig, seen)
	cmd.Process.Signal(sig)
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
		t.Fatalf("hopbench did not stop within 30s of %v", sig)
	}
	return rest.String(), err
}

// TestIntegrationSignals: SIGINT and SIGTERM mid-run stop every component
// by PID, remove their sockets, and exit 130 and 143, as a shell reports
// the signal.
func TestIntegrationSignals(t *testing.T) {
	for _, tc := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		cmd, tmp := hopbench(t, "--time", "5s", "--runs", "2")
		rest, err := signalMidRun(t, cmd, tc.sig)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != tc.code {
			t.Errorf("%v: exit %v, want status %d", tc.sig, err, tc.code)
		}
		if !strings.Contains(rest, "hopbench: interrupted by SIG") {
			t.Errorf("%v: stderr after the signal %q", tc.sig, rest)
		}
		noneLeft(t, tmp)
	}
}
