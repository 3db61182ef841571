package phrase

import (
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestUnstable(t *testing.T) {
	off := -8.0
	for _, c := range []struct {
		p    hop.PathResult
		want string
	}{
		{hop.PathResult{Instability: &hop.Instability{
			Judged: &hop.Judged{Values: []float64{10.9, 89.8, 139}, Kind: hop.DisagreeRatio, MaxMin: 12.75, Limit: 2},
			Cause:  &hop.Cause{Kind: hop.CausePlacement, Component: "relay", CPUs: "0|1"}}},
			"round p50s 10.9, 89.8, 139 µs: max/min 12.8 > 2; likely cause: placement changed between rounds (relay on CPUs 0|1)"},
		{hop.PathResult{
			Trace: &hop.Trace{P99Us: 250, Found: &hop.TraceCause{Runqueue: true},
				P99Longest: &hop.Longest{Component: "relay", Kind: "runnable", Runnable: true, Us: 180, CPU: 1, Behind: &hop.Task{TID: 42, Component: "server", Command: "pongd"}}},
			Instability: &hop.Instability{
				Noise:  &hop.NoiseExcess{SpreadPct: 79.2, HostPct: 4.4, Control: "direct unix"},
				Judged: &hop.Judged{Values: []float64{20, 21, 35, 36}, Kind: hop.DisagreeClusters, Below: []float64{20, 21}, Above: []float64{35, 36}},
				Cause:  &hop.Cause{Kind: hop.CauseTrace}}},
			"rounds spread 79% (max/min but the extremes), the direct paths' 4% (direct unix): " +
				"round p50s 20.0, 21.0, 35.0, 36.0 µs: two clusters, 20.0, 21.0 and 35.0, 36.0 µs; " +
				"likely cause: the trace shows runqueue wait: in the p99 request (250 µs) relay waited 180 µs runnable on CPU 1 behind the server (pongd 42)"},
		{hop.PathResult{Instability: &hop.Instability{
			Judged: &hop.Judged{State: "slow", Values: []float64{1.5, 1.21}, Kind: hop.DisagreeSpread, MaxMin: 1.2397, Limit: 1.3},
			Cause:  &hop.Cause{Kind: hop.CauseMigration}}},
			"in the host's slow rounds, round p50s 1.5, 1.2 µs: max/min 1.24 > 1.3; likely cause: CPU migration or another tenant's load on the pinned CPUs"},
		{hop.PathResult{Instability: &hop.Instability{
			Judged: &hop.Judged{Paired: "direct tcp", Values: []float64{1.5, 3.214}, Kind: hop.DisagreeRatio, MaxMin: 2.14, Limit: 2},
			Cause:  &hop.Cause{Kind: hop.CauseTwoHumped, Pct: 6.2}}},
			"round p50 over direct tcp's paired round 1.50, 3.21: max/min 2.1 > 2; likely cause: two-humped round trips: each round's p50 fell on one hump or the other while throughput agreed within 6% (the mean held: compare tps)"},
		{hop.PathResult{Instability: &hop.Instability{
			Judged: &hop.Judged{Values: []float64{100, 210}, Kind: hop.DisagreeRatio, MaxMin: 2.1, Limit: 2},
			Cause:  &hop.Cause{Kind: hop.CauseUnpinned}}},
			"round p50s 100, 210 µs: max/min 2.1 > 2; likely cause: placement: unpinned, the scheduler may place the components on one CPU in one round and on two in the next"},
		{hop.PathResult{Instability: &hop.Instability{
			Judged: &hop.Judged{Values: []float64{100, 210}, Kind: hop.DisagreeRatio, MaxMin: 2.1, Limit: 2},
			Cause:  &hop.Cause{Kind: hop.CauseReference, Reference: "direct tcp", Values: []float64{20, 42}, Pct: 3.4}}},
			"round p50s 100, 210 µs: max/min 2.1 > 2; likely cause: the machine: direct tcp moved with it in the same cycles (round p50s 20.0, 42.0 µs), and the ratio of the two held within 3%, so every round trip changed, not this path"},
		{hop.PathResult{Instability: &hop.Instability{
			Judged: &hop.Judged{Values: []float64{100, 210}, Kind: hop.DisagreeRatio, MaxMin: 2.1, Limit: 2},
			Cause:  &hop.Cause{Kind: hop.CauseClientCPU, Values: []float64{5.25, 11}, Pct: 4.6}}},
			"round p50s 100, 210 µs: max/min 2.1 > 2; likely cause: the machine: the client's own CPU time per request moved with the round p50s (5.2, 11.0 µs), their ratio within 5%: the same work ran slower in the slow rounds, so the host changed, not the path"},
		{hop.PathResult{Instability: &hop.Instability{
			Moved: &hop.MovedWithMachine{Values: []float64{50, 60}, MaxMin: 1.2, Limit: 1.15, Baseline: "direct tcp", BaselineUs: []float64{20, 25}}}},
			"round p50s 50.0, 60.0 µs: max/min 1.20 > 1.15 while the machine changed speed under the same cycles; likely cause: the machine: direct tcp's rounds moved (20.0, 25.0 µs) with its client's CPU time per request, so this path's figure is a median over two states of the machine"},
		{hop.PathResult{AddedUs: &hop.Added{P50: 55.7},
			AcrossRuns:  &hop.AcrossRuns{PastUs: []float64{99.4, 87.8}, MedianUs: 87.8, OffPct: -36.56, HostScale: 1.349, ScaledOffPct: &off},
			Instability: &hop.Instability{Across: &hop.AcrossFlag{Baseline: "direct tcp"}}},
			"added p50 55.7 µs, -37% from 87.8 µs, the median of this run and the last 2 of the same command on this machine (99.4, 87.8 µs): its rounds agreed, but the hop moved between runs" +
				", -8% even at the host's speed in those runs (direct tcp ran 1.35 times its p50 there)" +
				"; likely cause: the host's state between invocations (its other tenants, where it runs the vCPUs, the idle exits' cost)"},
	} {
		if got := Unstable(&c.p); got != c.want {
			t.Errorf("Unstable(%+v)\n got %q\nwant %q", c.p.Instability, got, c.want)
		}
	}
}

func TestTraceCause(t *testing.T) {
	for _, c := range []struct {
		t          hop.Trace
		detail, by string
	}{
		{hop.Trace{P99Us: 12.5, Found: &hop.TraceCause{Migration: true, Pct: 3.4},
			P99Longest: &hop.Longest{Kind: "user", Us: 4.25, CPU: 0}},
			"no component user 4.2 µs on CPU 0", "migration: 3% of the traced requests saw a component move between CPUs"},
		{hop.Trace{P99Us: 120, Found: &hop.TraceCause{},
			P99Longest: &hop.Longest{Component: "client", Kind: "other", Other: true, Us: 100}},
			"100 µs the events do not explain", "the p99 request (120 µs): 100 µs the events do not explain"},
		{hop.Trace{P99Us: 40, Found: &hop.TraceCause{Runqueue: true},
			P99Longest: &hop.Longest{Component: "relay", Kind: "runnable", Runnable: true, Us: 30, CPU: 2}},
			"relay waited 30.0 µs runnable on CPU 2 behind an idle CPU's wake-up",
			"runqueue wait: in the p99 request (40.0 µs) relay waited 30.0 µs runnable on CPU 2 behind an idle CPU's wake-up"},
		{hop.Trace{P99Us: 40, P99Longest: &hop.Longest{Component: "relay", Kind: "runnable", Runnable: true, Us: 30, CPU: 2, Behind: &hop.Task{TID: 7}}},
			"relay waited 30.0 µs runnable on CPU 2 behind thread 7, not on the path", ""},
	} {
		rep := &hop.Report{Paths: []hop.PathResult{{Trace: &c.t}}}
		Fill(rep)
		if got := rep.Paths[0].Trace; got.P99Detail != c.detail || got.Cause != c.by {
			t.Errorf("p99_detail %q, cause %q; want %q, %q", got.P99Detail, got.Cause, c.detail, c.by)
		}
	}
	for _, c := range []struct {
		t    hop.Task
		want string
	}{
		{hop.Task{TID: 42, Component: "server", Command: "pongd"}, "the server (pongd 42)"},
		{hop.Task{TID: 42, Command: "kworker/0:1"}, "kworker/0:1 (42)"},
		{hop.Task{TID: 42, Component: "relay"}, "the relay (thread 42)"},
	} {
		if got := task(&c.t); got != c.want {
			t.Errorf("task(%+v) = %q, want %q", c.t, got, c.want)
		}
	}
}

func TestStateEvidence(t *testing.T) {
	e := hop.StateEvidence{Control: "direct tcp", FastUs: []float64{20, 21.5}, FastRounds: []int{2, 4}, SlowUs: []float64{30, 131}, SlowRounds: []int{1, 3},
		With: []hop.ControlMove{{Control: "direct unix", FastUs: []float64{15}, SlowUs: []float64{24}}}, Moved: 10, Others: 10}
	want := "direct tcp's round p50s 20.0, 21.5 µs in rounds 2, 4, 30.0, 131 µs in rounds 1, 3; direct unix with it (15.0 and 24.0 µs); 10 of 10 other paths slower in the same rounds"
	if got := StateEvidence(e); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	e.With, e.Others = nil, 0
	if got, want := StateEvidence(e), "direct tcp's round p50s 20.0, 21.5 µs in rounds 2, 4, 30.0, 131 µs in rounds 1, 3"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
