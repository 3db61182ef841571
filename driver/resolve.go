package driver

import (
	"context"
	"math"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
)

// Against a real backend a hop can be small beside the server's own
// time, and rounds of the default length can leave its added p50's
// interval holding zero: the run then has no answer to give. With
// Config.Resolve set, the run is made again with rounds twice as long
// until every relay path's interval excludes zero, as long as the next
// run, which takes about twice the last, ends within the bound. The
// stopping rule: every interval resolved, the run stopped (partial), or
// the time spent plus twice the last run's passing the bound.

// resolveGrowth is how much longer each attempt's rounds run.
const resolveGrowth = 2

// resolving says whether cfg asks for rounds lengthened until the hops
// resolve: a real backend, one path matrix.
func resolving(cfg Config) bool {
	return cfg.Resolve > 0 && !cfg.Backend.Embedded() && !cfg.Sweeping()
}

// resolve runs cfg's run (run) until every relay path's interval excludes
// zero or the bound would pass, and says on the report how it ended.
func resolve(ctx context.Context, cfg Config, run func(context.Context, Config) (*hop.Report, error)) (*hop.Report, error) {
	began := time.Now()
	if cfg.Progress != nil {
		cfg.Progress.Event(event.Resolving{Bound: cfg.Resolve})
	}
	for attempt := 1; ; attempt++ {
		rep, err := run(ctx, cfg)
		if err != nil {
			return nil, err
		}
		spent := time.Since(began)
		open := unresolved(rep.Paths)
		round := roundLength(rep, cfg.Time)
		res := &hop.Resolution{BoundS: cfg.Resolve.Seconds(), SpentS: spent.Seconds(), Attempts: attempt,
			TimeS: round.Seconds(), Rounds: cfg.Rounds, Unresolved: len(open)}
		rep.Resolution = res
		last := time.Duration(rep.Elapsed * float64(time.Second))
		if len(open) == 0 || rep.Partial || ctx.Err() != nil {
			return rep, nil
		}
		if spent+resolveGrowth*last > cfg.Resolve {
			res.SmallestUs, res.SuggestTimeS, res.SuggestRuns = smallestResolved(open, round, cfg.Rounds-cfg.Discard, cfg.Discard)
			return rep, nil
		}
		if cfg.Progress != nil {
			cfg.Progress.Event(event.Unresolved{Paths: len(open), After: spent, Growth: resolveGrowth})
		}
		cfg.Time *= resolveGrowth
		cfg.RoundRequests *= resolveGrowth
		cfg.Budget *= resolveGrowth
	}
}

// unresolved is the measured relay paths whose added p50 interval holds
// zero.
func unresolved(paths []hop.PathResult) []hop.PathResult {
	var out []hop.PathResult
	for _, p := range paths {
		a := p.AddedUs
		if p.Relay == hop.Direct || a == nil || !p.Measured() || a.Pairs < 2 {
			continue
		}
		if a.CI95P50[0] <= 0 && a.CI95P50[1] >= 0 {
			out = append(out, p)
		}
	}
	return out
}

// roundLength is how long the run's rounds ran: the longest a stage's
// sizing chose (rounds hold RoundRequests requests, and run longer than
// the configured time where a request is dear), else the configured time.
func roundLength(rep *hop.Report, configured time.Duration) time.Duration {
	d := configured
	for _, s := range rep.Config.RoundSizing {
		d = max(d, time.Duration(s.TimeS*float64(time.Second)))
	}
	return d
}

// smallestResolved is the smallest hop the run could have told from no
// hop: the widest distance from an unresolved path's added p50 to the
// end of its interval toward zero. suggestS and suggestRuns are the round
// length, or the rounds (kept ones, of the length that ran, plus the
// discarded warm-up) that would resolve the unresolved paths as measured,
// were an interval's width to shrink with the square root of the
// requests it rests on: a round's length narrows what each round's p50
// scatters by, more rounds also what the host drifts by between them.
func smallestResolved(open []hop.PathResult, roundTime time.Duration, kept, discard int) (smallestUs, suggestS float64, suggestRuns int) {
	factor := 1.0
	for _, p := range open {
		a := p.AddedUs
		half := a.P50 - a.CI95P50[0]
		if a.P50 < 0 {
			half = a.CI95P50[1] - a.P50
		}
		smallestUs = math.Max(smallestUs, half)
		if m := math.Abs(a.P50); m > 0 {
			factor = math.Max(factor, (half/m)*(half/m))
		} else {
			factor = math.Inf(1)
		}
	}
	if math.IsInf(factor, 1) {
		return smallestUs, 0, 0 // a hop measured as none: no length resolves it
	}
	return smallestUs, math.Ceil(factor * roundTime.Seconds()), int(math.Ceil(factor*float64(max(kept, 1)))) + discard
}
