package driver

import (
	"context"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
)

// resolveRun is a stand-in run whose epoll hop's interval narrows with the
// square root of the round's length, and that takes elapsed per run.
func resolveRun(calls *[]time.Duration, elapsed float64) func(context.Context, Config) (*hop.Report, error) {
	return func(_ context.Context, cfg Config) (*hop.Report, error) {
		*calls = append(*calls, cfg.Time)
		half := 12 / float64(cfg.Time/(100*time.Millisecond))
		epoll := hop.PathResult{Name: "epoll tcp->tcp", Relay: hop.Epoll, Rounds: []hop.Round{{Kept: true}},
			AddedUs: &hop.Added{P50: 5, CI95P50: [2]float64{5 - half, 5 + half}, Pairs: 6}}
		return &hop.Report{Paths: []hop.PathResult{{Name: "direct tcp", Relay: hop.Direct}, epoll}, Elapsed: elapsed}, nil
	}
}

// The run lengthens its rounds until the hop resolves: 12 µs either side
// at 0.1 s, 6 at 0.2, 3 at 0.4 (resolved, 5 µs above 2).
func TestResolveLengthensUntilTheHopResolves(t *testing.T) {
	var calls []time.Duration
	cfg := Config{Time: 100 * time.Millisecond, Resolve: time.Hour}
	rep, err := resolve(context.Background(), cfg, resolveRun(&calls, 0.01))
	if err != nil {
		t.Fatal(err)
	}
	if len(calls) != 3 || calls[2] != 400*time.Millisecond {
		t.Fatalf("round lengths %v, want 0.1 s doubled to 0.4 s", calls)
	}
	if r := rep.Resolution; r == nil || r.Unresolved != 0 || r.Attempts != 3 {
		t.Errorf("resolution %+v, want resolved in 3 attempts", r)
	}
}

// Where the next run would pass the bound, the run stops and says the
// smallest hop it could resolve and the round length, or the rounds, that
// would.
func TestResolveStopsAtItsBound(t *testing.T) {
	var calls []time.Duration
	cfg := Config{Time: 100 * time.Millisecond, Resolve: 10 * time.Second, Rounds: 7, Discard: 1}
	rep, err := resolve(context.Background(), cfg, resolveRun(&calls, 6))
	if err != nil {
		t.Fatal(err)
	}
	r := rep.Resolution
	if len(calls) != 1 || r == nil || r.Unresolved != 1 {
		t.Fatalf("runs %v, resolution %+v; want one run, unresolved", calls, r)
	}
	// 12 µs below a 5 µs hop: (12/5)² times 0.1 s, rounded up, or times
	// the 6 rounds kept, rounded up, and the warm-up round.
	if r.SmallestUs != 12 || r.SuggestTimeS != 1 || r.SuggestRuns != 36 {
		t.Errorf("smallest %v µs, suggested --time %v s or --runs %d; want 12, 1 and 36", r.SmallestUs, r.SuggestTimeS, r.SuggestRuns)
	}
}

// Rounds sized from what a request costs run longer than --time: the
// resolution says the length that ran, and scales its suggestion from it.
func TestResolveSaysTheRoundLengthThatRan(t *testing.T) {
	var calls []time.Duration
	run := resolveRun(&calls, 6)
	cfg := Config{Time: 100 * time.Millisecond, Resolve: 10 * time.Second, Rounds: 7, Discard: 1}
	rep, err := resolve(context.Background(), cfg, func(ctx context.Context, cfg Config) (*hop.Report, error) {
		rep, err := run(ctx, cfg)
		if rep != nil {
			rep.Config.RoundSizing = []hop.RoundSizing{{Stage: "packed", TimeS: 1.5}, {Stage: "spread", TimeS: 1.7}}
		}
		return rep, err
	})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Resolution; r.TimeS != 1.7 || r.SuggestTimeS != 10 {
		t.Errorf("round %v s, suggested --time %v s; want 1.7 (the longest stage's) and (12/5)² × 1.7 rounded up, 10",
			r.TimeS, r.SuggestTimeS)
	}
}
