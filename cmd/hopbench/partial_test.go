package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
)

// partialRun is a run long enough to interrupt in its middle: two paths,
// twenty rounds of 200 ms, the first a warm-up.
var partialRun = []string{"--paths", "direct,epoll", "--transports", "tcp", "--runs", "20", "--discard", "1",
	"--time", "200ms", "--warmup", "30ms", "--trace=false"}

// proc is a process as /proc names it: its PID and its start time, which
// tells it from a later process given the same PID.
type proc struct {
	pid   int
	start string
	cmd   string
}

// childrenOf lists the processes whose parent is pid: hopbench's
// components, each started by hopbench itself.
func childrenOf(t *testing.T, pid int) []proc {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var out []proc
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, start, ok := statOf(n)
		if !ok || ppid != pid {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out = append(out, proc{n, start, string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))})
	}
	return out
}

// statOf reads a process's parent and start time from /proc/PID/stat
// (proc(5): fields 4 and 22, counted after the parenthesised command).
func statOf(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[19], err == nil
}

// interruptAfter starts cmd, reads its progress until the line that begins
// round `round` (every round before it then completed on every path), lists
// its components, sends sig, and waits up to 10 s for it to exit. It
// returns stdout, the stderr that followed the signal, the components
// seen, and how cmd ended.
func interruptAfter(t *testing.T, cmd *exec.Cmd, round int, sig syscall.Signal) (stdout []byte, rest string, comps []proc, err error) {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	marker := []byte("round " + strconv.Itoa(round) + "/")
	var seen []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(seen, marker) {
		n, err := stderr.Read(buf)
		if err != nil {
			cmd.Wait()
			t.Fatalf("hopbench ended before %s: %v\n%s", marker, err, seen)
		}
		seen = append(seen, buf[:n]...)
	}
	comps = childrenOf(t, cmd.Process.Pid)
	if len(comps) == 0 {
		t.Errorf("no component of hopbench's found running at %s", marker)
	}
	cmd.Process.Signal(sig)
	began := time.Now()
	done := make(chan error, 1)
	var after bytes.Buffer
	go func() {
		io.Copy(&after, stderr)
		done <- cmd.Wait()
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("hopbench did not stop within 10 s of %v:\n%s%s", sig, seen, after.String())
	}
	t.Logf("%v after %s; stopped in %v:\n%s", sig, marker, time.Since(began).Round(time.Millisecond), after.String())
	return out.Bytes(), after.String(), comps, err
}

// noComponentLeft checks that every component seen running has ended: its
// PID is gone, or belongs to a process started since.
func noComponentLeft(t *testing.T, comps []proc) {
	t.Helper()
	for _, c := range comps {
		if _, start, ok := statOf(c.pid); ok && start == c.start {
			t.Errorf("component %d left running: %s", c.pid, c.cmd)
		}
	}
}

func exitCode(err error) int {
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	if err == nil {
		return 0
	}
	return -1
}

// SIGINT after some rounds: the report of the rounds completed is printed
// (JSON marked partial, the reason naming SIGINT and where), --out still
// writes its files, every component is stopped, and the exit status is
// 130, the message on stderr saying so.
func TestIntegrationInterruptedReport(t *testing.T) {
	out := t.TempDir()
	cmd, tmp := hopbench(t, append([]string{"--format", "json", "--out", out}, partialRun...)...)
	// Seeing round 3 begin, rounds 1 (the warm-up) and 2 completed.
	stdout, rest, comps, err := interruptAfter(t, cmd, 3, syscall.SIGINT)
	if code := exitCode(err); code != 130 {
		t.Errorf("exit %v (status %d), want 130", err, code)
	}
	if !strings.Contains(rest, "hopbench: interrupted by SIGINT after round ") || !strings.Contains(rest, "every component stopped") {
		t.Errorf("stderr after the signal does not say it was interrupted and stopped every component:\n%s", rest)
	}
	noComponentLeft(t, comps)
	noneLeft(t, tmp)
	if err := hoptest.CheckJSON(stdout); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var rep hop.Report
	if err := json.Unmarshal(stdout, &rep); err != nil {
		t.Fatal(err)
	}
	if !rep.Partial || !regexp.MustCompile(`^interrupted by SIGINT after round [0-9]+ of 20\b`).MatchString(rep.PartialReason) {
		t.Errorf("partial %v, reason %q; want true, interrupted by SIGINT after round N of 20", rep.Partial, rep.PartialReason)
	}
	var direct *hop.PathResult
	for i, p := range rep.Paths {
		// The first regime's direct path ran first: its rounds before
		// the signal completed (a later regime's rows are unmeasured).
		if direct == nil && strings.HasPrefix(p.Name, "direct tcp") {
			direct = &rep.Paths[i]
		}
		if len(p.Rounds) >= 20 {
			t.Errorf("%s: %d rounds of 20 in an interrupted run", p.Name, len(p.Rounds))
		}
		if p.Failed > 0 {
			t.Errorf("%s: %d failed rounds: the round cut short must be dropped, not failed: %+v", p.Name, p.Failed, p.Rounds)
		}
	}
	if direct == nil || !direct.Measured() || direct.Unmeasured || direct.LatencyUs.P50 <= 0 {
		t.Fatalf("direct tcp has no kept round: %+v", direct)
	}
	saved, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	var onDisk hop.Report
	if err := json.Unmarshal(saved, &onDisk); err != nil || !onDisk.Partial || onDisk.PartialReason != rep.PartialReason {
		t.Errorf("--out report.json: partial %v %q (%v), want as printed", onDisk.Partial, onDisk.PartialReason, err)
	}
}

// SIGTERM after some rounds, text report: its first line says it is
// partial and why, within 100 columns, and the exit status is 143.
func TestIntegrationInterruptedText(t *testing.T) {
	cmd, tmp := hopbench(t, partialRun...)
	stdout, _, comps, err := interruptAfter(t, cmd, 3, syscall.SIGTERM)
	if code := exitCode(err); code != 143 {
		t.Errorf("exit %v (status %d), want 143", err, code)
	}
	noComponentLeft(t, comps)
	noneLeft(t, tmp)
	first, _, _ := strings.Cut(string(stdout), "\n")
	if !strings.HasPrefix(first, "PARTIAL REPORT: interrupted by SIGTERM after round ") || len([]rune(first)) > 100 {
		t.Errorf("first line %q, want the partial mark within 100 columns:\n%s", first, stdout)
	}
}
