package report_test

import (
	"slices"
	"testing"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/pingpong/report/reporttest"
	"github.com/hoplat/hoplat/stats"
)

func TestAnalyzeStep(t *testing.T) {
	r := reporttest.Report()

	one := report.AnalyzeStep(r.Steps[0])
	if !slices.Equal(one.OutlierRuns, []int{0}) || !one.Runs[0].Outlier || one.Runs[1].Outlier {
		t.Errorf("threads 1: outlier runs %v, want [0] flagged on run 0 only", one.OutlierRuns)
	}
	if one.QPS != nil || one.Corrected != nil || one.Connect != nil {
		t.Errorf("threads 1: qps, corrected, connect = %v, %v, %v; want none in closed-loop echo", one.QPS, one.Corrected, one.Connect)
	}

	four := report.AnalyzeStep(r.Steps[1])
	kept := r.Steps[1].Runs[1:]
	var events, queries, errs, reconn int64
	workers := make([]int64, 4)
	for _, run := range kept {
		events += run.Transactions()
		queries += run.Queries
		errs += run.Errors
		reconn += run.Reconnects
		for w, e := range run.Events {
			workers[w] += e
		}
	}
	if four.Transactions != events || four.Queries != queries || four.Errors != errs || four.Reconnects != reconn {
		t.Errorf("threads 4: totals %d/%d/%d/%d, want the kept runs' %d/%d/%d/%d",
			four.Transactions, four.Queries, four.Errors, four.Reconnects, events, queries, errs, reconn)
	}
	if four.ElapsedS != 15 {
		t.Errorf("threads 4: elapsed %v s, want 15 (3 kept runs of 5 s)", four.ElapsedS)
	}
	if four.Latency.Count != events {
		t.Errorf("threads 4: merged latency count %d, want %d", four.Latency.Count, events)
	}
	if four.Fairness != report.FairnessOf(workers) {
		t.Errorf("threads 4: fairness %+v, want %+v over summed workers", four.Fairness, report.FairnessOf(workers))
	}
	if four.QPS == nil || four.QPS.Mean != 16*four.TPS.Mean {
		t.Errorf("threads 4: qps %+v, want 16 × tps", four.QPS)
	}
	if four.Corrected == nil || four.Corrected.Count != events {
		t.Errorf("threads 4: corrected latency %+v, want %d values", four.Corrected, events)
	}
	// Connect: run 0 discarded, run 2 not measured, runs 1 and 3 have 4 each.
	if four.Connect == nil || four.Connect.Count != 8 {
		t.Errorf("threads 4: connect %+v, want 8 connections", four.Connect)
	}
	if !slices.Equal(four.ErrorSamples, []string{"mysql: 1213 Deadlock found", "mysql: 1205 Lock wait timeout"}) {
		t.Errorf("threads 4: error samples %q", four.ErrorSamples)
	}
	if !four.Runs[0].Discarded || four.Runs[1].Discarded {
		t.Errorf("threads 4: run 0 must be discarded, run 1 kept")
	}
}

func TestAnalyzeStepRunIndex(t *testing.T) {
	// Outlier runs are reported by the runs' own Index, as printed.
	s := report.Step{}
	for i, v := range []float64{100, 100, 101, 99, 100, 10} {
		s.Runs = append(s.Runs, report.Run{Index: 10 + i, Elapsed: time.Second, Events: []int64{int64(v)}})
	}
	res := report.AnalyzeStep(s)
	if !slices.Equal(res.OutlierRuns, []int{15}) || !res.Runs[5].Outlier {
		t.Errorf("outlier runs %v, want [15]", res.OutlierRuns)
	}
}

// mysql ping: one statement per transaction. Queries equal events, so no
// qps series (package present/load still heads the counters as SQL's).
func TestNoQPSWhenQueriesAreEvents(t *testing.T) {
	run := report.Run{Elapsed: time.Second, Latency: stats.NewHistogram(), Events: []int64{10}, Queries: 10}
	for _, queries := range []int64{10, 0} {
		run.Queries = queries
		r := report.Report{Steps: []report.Step{{Threads: 1, Runs: []report.Run{run}}}}
		if res := r.Results()[0]; res.QPS != nil {
			t.Errorf("%d queries: qps %+v, want none when queries equal events or are not counted", queries, res.QPS)
		}
	}
}
