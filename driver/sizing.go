package driver

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/roles"
)

// roundCap is the longest a sized round may run within cfg's budget: the
// budget shared out over every step of the run, each step's warm-up taken
// off. Zero when nothing bounds it.
func roundCap(cfg Config, steps int) time.Duration {
	if cfg.Budget <= 0 || steps <= 0 {
		return 0
	}
	return max(cfg.Budget/time.Duration(steps)-cfg.Warmup, 0)
}

// sizedTime is the round length that holds target requests at perRequest
// each: cfg's time at the least, cap at the most (when cap is set and not
// below the least), rounded up to 10 ms.
func sizedTime(least, perRequest time.Duration, target int, cap time.Duration) (d time.Duration, capped bool) {
	need := time.Duration(math.Ceil(float64(perRequest) * float64(target)))
	need = (need + 10*time.Millisecond - 1).Truncate(10 * time.Millisecond)
	d = max(least, need)
	if cap > 0 && d > cap {
		return max(least, cap), true
	}
	return d, false
}

// calibrationPath is the path a stage's rounds are sized on: its first live
// direct path (a relay path only adds to a request's cost), else its first.
func calibrationPath(live []hop.Path) hop.Path {
	if i := slices.IndexFunc(live, func(p hop.Path) bool { return p.Relay == hop.Direct }); i >= 0 {
		return live[i]
	}
	return live[0]
}

// sizeRounds runs one pingpong on the stage's calibration path, as long as
// a round would be, and returns the stage's round length: long enough that
// a round of that path holds cfg.RoundRequests requests. A calibration that
// fails leaves cfg.Time, and says why.
func (b *bench) sizeRounds(ctx context.Context, s *stageRun, live []hop.Path) (time.Duration, hop.RoundSizing, error) {
	cfg, st, placement := s.cfg, s.st, s.placement
	p := calibrationPath(live)
	threads := cfg.Threads[0]
	rs := hop.RoundSizing{Stage: stageLabel(cfg, st), Path: p.Name(), Target: cfg.RoundRequests, TimeS: cfg.Time.Seconds()}
	if cfg.Budget > 0 {
		rs.BudgetS = cfg.Budget.Seconds()
	}
	client := clientFor(cfg, st, placement)
	argv, err := b.hosts.argv(roles.Client, client.Args(s.pingpong, s.topo.Entries[p], threads))
	if err != nil {
		return 0, rs, err
	}
	clientCPUs, _ := placement.For(roles.Client)
	smp, err := b.measure(ctx, argv, client.Env(), clientCPUs)
	if ctx.Err() != nil {
		return 0, rs, ctx.Err()
	}
	switch {
	case err != nil:
		rs.Error = err.Error()
	case smp.TPS <= 0:
		rs.Error = "no request completed"
	}
	if rs.Error != "" {
		return cfg.Time, rs, nil
	}
	// What a request costs the round is the time between completions:
	// a round's p50 rests on all of its requests, over every connection.
	// The first thread count has the lowest rate, so every count of a
	// sweep holds at least the target.
	perRequest := time.Duration(float64(time.Second) / smp.TPS)
	d, capped := sizedTime(cfg.Time, perRequest, cfg.RoundRequests, b.roundCap)
	rs.RequestUs = float64(perRequest.Nanoseconds()) / 1e3
	rs.TimeS, rs.Capped = d.Seconds(), capped
	rs.Expected = int(smp.TPS * d.Seconds())
	return d, rs, nil
}

// stageLabel names a stage for the sizing line: its regime, and the
// backend settings the run sweeps.
func stageLabel(cfg Config, st Stage) string {
	label := st.Regime
	add := func(s string) {
		if label != "" {
			label += ", "
		}
		label += s
	}
	if len(cfg.ServiceTimes) > 1 {
		add(fmt.Sprintf("service time %v", st.ServiceTime))
	}
	if len(cfg.Sizes) > 1 {
		add(fmt.Sprintf("size %d", st.Size))
	}
	if len(cfg.Rows) > 1 {
		add(fmt.Sprintf("rows %d", st.Rows))
	}
	if label == "" {
		label = "all"
	}
	return label
}
