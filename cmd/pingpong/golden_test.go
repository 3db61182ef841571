package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/present/load"
	"github.com/hoplat/hoplat/results"
	"github.com/hoplat/hoplat/results/stats"
)

// The outputs of a pingpong run, pinned byte for byte: --format text, json
// and csv and the --hgrm files, from a fixed synthetic run of two steps
// (a closed-loop echo thread whose first run is slow, four open-loop
// mysql threads with connect latency, errors and reconnects). A change to
// testdata/golden is a change of the outputs, to be reviewed as such.

// lcg is Knuth's MMIX linear congruential generator: fixed, and not
// subject to math/rand changes between Go releases.
type lcg uint64

func (l *lcg) next() uint64 {
	*l = *l*6364136223846793005 + 1442695040888963407
	return uint64(*l >> 33)
}

// goldenLatency fills a histogram with n round trips around base ns, with
// a 1% tail ten times slower.
func goldenLatency(seed uint64, n int64, base int64) *stats.Histogram {
	h := stats.NewHistogram()
	l := lcg(seed)
	for range n {
		v := base + int64(l.next()%uint64(base/2))
		if l.next()%100 == 0 {
			v *= 10
		}
		h.Record(v)
	}
	return h
}

func goldenRun() results.Report {
	tpsSeries := []float64{4253.60, 8685.55, 8324.28, 8680.88, 8321.53, 8391.27,
		8557.10, 8034.79, 7532.90, 8196.65, 7931.77, 7981.55}
	one := results.Step{Threads: 1}
	for i, tps := range tpsSeries {
		events := int64(math.Round(tps))
		one.Runs = append(one.Runs, results.Run{Index: i, Elapsed: time.Second,
			Latency: goldenLatency(uint64(i+1), events, 100_000), Events: []int64{events}})
	}
	four := results.Step{Threads: 4, Discard: 1}
	for i := range 4 {
		events := []int64{2000 + int64(i), 2010, 1990, 2005}
		var total int64
		for _, e := range events {
			total += e
		}
		connect := goldenLatency(uint64(100+i), 4, 300_000)
		if i == 2 {
			connect = nil
		}
		run := results.Run{
			Index:      i,
			Elapsed:    5 * time.Second,
			Latency:    goldenLatency(uint64(10+i), total, 900_000),
			Corrected:  goldenLatency(uint64(20+i), total, 1_100_000),
			Connect:    connect,
			Events:     events,
			Queries:    16 * total,
			Errors:     int64(i),
			Ignored:    int64(i / 2),
			Reconnects: int64(i % 2),
		}
		if i > 0 {
			run.ErrorSamples = []string{"mysql: 1213 Deadlock found", "mysql: 1205 Lock wait timeout"}
			run.Wake = goldenLatency(uint64(30+i), 50, 4_000)
			run.Unstamped = int64(i)
		}
		four.Runs = append(four.Runs, run)
	}
	type config struct {
		Target  string `json:"target"`
		Proto   string `json:"proto"`
		Threads []int  `json:"threads"`
		Time    string `json:"time"`
		Rate    int    `json:"rate"`
	}
	return results.Report{
		Config: config{Target: "tcp:127.0.0.1:3306", Proto: "mysql", Threads: []int{1, 4}, Time: "10s", Rate: 2000},
		Env: affinity.Env{Hostname: "bench1", OS: "linux", Arch: "amd64", Kernel: "6.8.0-45-generic",
			CPUModel: "Intel(R) Xeon(R) CPU @ 2.20GHz", Cores: 2, GOMAXPROCS: 2, GoVersion: "go1.26.0",
			ClockSource: "tsc", Pinning: map[string]string{"pingpong": "0", "pongd": "1"}},
		Steps: []results.Step{one, four},
	}
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
	for _, p := range []results.Progress{
		{At: 3 * time.Second, Threads: 4, Interval: time.Second, Events: 1234, Queries: 19744, P95: 123.456, Errors: 2},
		{At: 1500 * time.Millisecond, Threads: 1, Interval: 500 * time.Millisecond, Events: 100, Reconnects: 1, P95: 25},
	} {
		progress.WriteString(p.String() + "\n")
	}
	golden.Check(t, filepath.Join("golden", "progress.txt"), progress.Bytes())
}

// goldenPartial is goldenRun stopped by SIGINT 1.25 s into the second run
// at four threads: the step at one thread whole, the four-thread step's
// first run whole (and discarded), its second cut short, the rest never
// run.
func goldenPartial() results.Report {
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
