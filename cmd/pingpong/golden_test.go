package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/pingpong/report/reporttest"
	"github.com/hoplat/hoplat/present/load"
)

// The outputs of a pingpong run, pinned byte for byte: --format text, json
// and csv and the --hgrm files, from a fixed synthetic run of two steps
// (a closed-loop echo thread whose first run is slow, four open-loop
// mysql threads with connect latency, errors and reconnects). A change to
// testdata/golden is a change of the outputs, to be reviewed as such.

// goldenRun is the synthetic run the reporters' tests share, its
// open-loop runs also with ignored errors, wake-up latency and unstamped
// replies.
func goldenRun() report.Report {
	rep := reporttest.Report()
	for i := range rep.Steps[1].Runs {
		run := &rep.Steps[1].Runs[i]
		run.Ignored = int64(i / 2)
		if i > 0 {
			run.Wake = reporttest.Latency(uint64(30+i), 50, 4_000)
			run.Unstamped = int64(i)
		}
	}
	return rep
}

func TestGoldenOutputs(t *testing.T) {
	rep := goldenRun()
	for _, c := range []struct{ file, format string }{
		{"report.txt", "text"}, {"report.json", "json"}, {"report.csv", "csv"},
	} {
		write, err := load.ReporterFor(c.format, rep)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("golden", c.file), b.Bytes())
	}
	dir := t.TempDir()
	if err := writeHgrm(filepath.Join(dir, "latency.hgrm"), rep.Results()); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"latency.t1.hgrm", "latency.t4.hgrm"} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("golden", name), b)
	}
	var progress bytes.Buffer
	for _, p := range []report.Progress{
		{At: 3 * time.Second, Threads: 4, Interval: time.Second, Events: 1234, Queries: 19744, P95: 123.456, Errors: 2},
		{At: 1500 * time.Millisecond, Threads: 1, Interval: 500 * time.Millisecond, Events: 100, Reconnects: 1, P95: 25},
	} {
		progress.WriteString(load.ProgressLine(p) + "\n")
	}
	golden.Check(t, filepath.Join("golden", "progress.txt"), progress.Bytes())
}

// goldenPartial is goldenRun stopped by SIGINT 1.25 s into the second run
// at four threads: the step at one thread whole, the four-thread step's
// first run whole (and discarded), its second cut short, the rest never
// run.
func goldenPartial() report.Report {
	rep := goldenRun()
	four := &rep.Steps[1]
	four.Runs = four.Runs[:2]
	cut := &four.Runs[1]
	cut.Elapsed = 1250 * time.Millisecond
	cut.Partial = true
	rep.Partial = true
	rep.PartialReason = "interrupted by SIGINT after 18.2s of 32s"
	return rep
}

// TestGoldenPartial pins a partial report: marked in its first line (text)
// and at the top and on the cut run (JSON); the four-thread step's one
// kept run prints its CI as n/a.
func TestGoldenPartial(t *testing.T) {
	rep := goldenPartial()
	for _, c := range []struct{ file, format string }{
		{"partial.txt", "text"}, {"partial.json", "json"},
	} {
		write, err := load.ReporterFor(c.format, rep)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("golden", c.file), b.Bytes())
	}
}
