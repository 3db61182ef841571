package phrase

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/compare"
)

func TestNoiseFrom(t *testing.T) {
	for _, c := range []struct {
		n    compare.NoiseSource
		want string
	}{
		{compare.NoiseSource{}, "unmeasured"},
		{compare.NoiseSource{Kind: compare.NoiseRepeated, Runs: 2, Of: "a1 + a2", Pct: 7.24}, "2 runs of a1 + a2 7.2% apart"},
		{compare.NoiseSource{Kind: compare.NoiseControl, Of: "direct tcp packed", Pct: 7.58}, "direct tcp packed moved 7.6%"},
		{compare.NoiseSource{Kind: compare.NoisePace, Of: "direct tcp packed", Run: "b", Pace: 1.18}, "direct tcp packed in b: pace 1.18"},
		{compare.NoiseSource{Kind: compare.NoisePeer, Of: "haproxy tcp->tcp packed", Pct: 18.04}, "haproxy tcp->tcp packed (an outside relay) moved 18.0%"},
		{compare.NoiseSource{Kind: compare.NoiseFloor, Pct: compare.SingleRunFloorPct}, "one run a side: fresh processes move a path up to 5% between runs"},
		{compare.NoiseSource{Kind: compare.NoiseFloor, Pct: compare.SingleRunHopFloorPct, Hop: true}, "one run a side: fresh processes move a hop up to 15% between runs"},
		{compare.NoiseSource{Kind: compare.NoiseOneRun}, "one run"},
	} {
		if got := NoiseFrom(c.n); got != c.want {
			t.Errorf("NoiseFrom(%+v) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestFillComparison(t *testing.T) {
	c := &compare.Comparison{
		Rows:  []compare.Row{{Noise: compare.NoiseSource{Kind: compare.NoiseOneRun}}, {NoiseFrom: "as read back"}},
		Alone: []compare.Alone{{Label: "socat tcp->tcp packed", Run: "b"}, {Label: "direct tcp", Run: "epoll tcp->tcp", Beside: true}},
	}
	FillComparison(c)
	FillComparison(c)
	if c.Rows[0].NoiseFrom != "one run" || c.Rows[1].NoiseFrom != "as read back" {
		t.Errorf("noise_from %q, %q", c.Rows[0].NoiseFrom, c.Rows[1].NoiseFrom)
	}
	want := []string{"socat tcp->tcp packed only in b", "direct tcp has no epoll tcp->tcp beside it"}
	if len(c.Unmatched) != len(want) || c.Unmatched[0] != want[0] || c.Unmatched[1] != want[1] {
		t.Errorf("unmatched %q, want %q", c.Unmatched, want)
	}
}

func TestTrouble(t *testing.T) {
	long := "pingpong: " + strings.Repeat("x", 100) + "\nstderr: ..."
	for _, c := range []struct {
		t    compare.Trouble
		want string
	}{
		{compare.Trouble{Kind: compare.TroubleErrors, N: 3}, "3 errors"},
		{compare.Trouble{Kind: compare.TroubleErrors, N: 1, Run: "b2"}, "b2: 1 error"},
		{compare.Trouble{Kind: compare.TroubleFailed, N: 2}, "2 failed rounds"},
		{compare.Trouble{Kind: compare.TroubleFailed, N: 1, Round: 0, InRound: true, Text: "pingpong: exit status 1\nstderr: ..."},
			"1 failed round (round 0: pingpong: exit status 1)"},
		{compare.Trouble{Kind: compare.TroubleFailed, N: 1, Round: 3, InRound: true, Text: long},
			"1 failed round (round 3: " + string([]rune(long)[:79]) + "…)"},
		{compare.Trouble{Kind: compare.TroubleUnstable}, "unstable"},
		{compare.Trouble{Kind: compare.TroubleUnstable, Text: "round p50s 61, 62, 90 µs: two clusters"}, "unstable: round p50s 61, 62, 90 µs: two clusters"},
		{compare.Trouble{Kind: compare.TroublePartial, Text: "interrupted by SIGINT after round 3 of 11"}, "partial run: interrupted by SIGINT after round 3 of 11"},
	} {
		if got := Trouble(c.t); got != c.want {
			t.Errorf("Trouble(%+v) = %q, want %q", c.t, got, c.want)
		}
	}
}

func TestDifference(t *testing.T) {
	d := compare.Difference{Kind: "workload", Field: "config.service_times_us", Old: "", New: "5", Run: "svc.json"}
	if got, want := Difference(d), "workload config.service_times_us: (unset) -> 5 (svc.json)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
