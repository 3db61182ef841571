package hop

import (
	"slices"

	"github.com/hoplat/hoplat/series"
	"github.com/hoplat/hoplat/stats"
)

// kept reports whether round i counts: past the warm-up and with figures.
func (s Series) kept(i, discard int) bool { return i >= discard && s.Samples[i].Failed == "" }

// Analyze turns measured series into the report's paths and, when chains
// is set, fits of p50 against hop count. discard is the number of leading
// warm-up rounds.
func Analyze(all []Series, discard int, chains bool) ([]PathResult, []Chain) {
	sums := make([]PathResult, len(all))
	for i, s := range all {
		sums[i] = summarise(s, discard)
	}
	for i, s := range all {
		if base := baselineOf(all, s); base != nil {
			sums[i].AddedUs = added(s, *base, discard)
		}
	}
	// Where the host changed speed between rounds, each path is judged
	// against its baseline's round of the same cycle (states.go).
	states := detectStates(sums)
	for i, s := range all {
		r := &sums[i]
		r.spread = spreadOf(r.RoundsP50Us)
		h := states[groupOf(*r)]
		if h != nil {
			j := baselineIndex(all, s)
			var base *PathResult
			var pair []int
			if j >= 0 && j != i {
				base = &sums[j]
				pair = h.pairing(*r, *base, i > j)
			}
			var model string
			var why *Judged
			r.Stable, why, r.spread, model = pairedStability(*r, base, h, pair)
			r.Instability = nil
			if why != nil {
				r.Instability = &Instability{Judged: why}
			}
			if r.AddedUs != nil && base != nil && !isControl(*r) {
				if a := pairedAdded(*r, *base, h, pair, model, r.AddedUs.Baseline); a != nil {
					r.AddedUs = a
				}
			}
		}
		if !r.Stable {
			cause := likelyCause(s.Setting.Regime, s.Placement, r.tps)
			if r.Trace != nil && r.Trace.Found != nil {
				cause = &Cause{Kind: CauseTrace}
			}
			// A placement that changed between rounds, or none at all,
			// moves the client's CPU time per request too (a
			// cross-CPU wake-up costs it more): it is the cause then.
			// Where the host's states are known, the pairing took the
			// machine out already.
			if h == nil && !placementMoved(s.Setting.Regime, s.Placement) {
				if shared := sharedState(all, s, discard); shared != nil {
					cause = shared
				}
			}
			if r.Instability == nil {
				r.Instability = &Instability{}
			}
			r.Instability.Cause = cause
		} else if h == nil {
			if moved := movedWithMachine(all, sums, i, discard); moved != nil {
				r.Stable, r.Instability = false, &Instability{Moved: moved}
			}
		}
		if r.Stable && r.Trace != nil && r.Trace.Found != nil {
			t := *r.Trace
			t.Found = nil // it names what moved an unstable path's rounds
			r.Trace = &t
		}
	}
	judgeAgainstNoise(sums)
	limitFlagged(sums)
	for i, s := range all {
		sums[i].RelayUs = s.RelayUs
		sums[i].KernelUs = kernelShare(sums[i])
	}
	if regimes(all) > 1 {
		// One path in two regimes is two rows: the names say which.
		for i := range sums {
			sums[i].Name += " " + sums[i].Regime
			if a := sums[i].AddedUs; a != nil {
				a.Baseline += " " + sums[i].Regime
			}
		}
	}
	var fits []Chain
	if chains {
		fits = fitChains(all, sums, discard)
	}
	return sums, fits
}

// kernelShare is what of r's added p50 the relay's own code (RelayUs)
// does not account for: the kernel's, two more socket round trips through
// loopback and the wake-ups of the relay's thread. A residence longer than
// the whole hop is a mean over requests that queued inside the relay (many
// connections, one loop), not a part of the median request's hop: then no
// remainder is left to give the kernel, and it is nil.
func kernelShare(r PathResult) *float64 {
	if r.RelayUs == nil || r.AddedUs == nil {
		return nil
	}
	if kernel := r.AddedUs.P50 - *r.RelayUs; kernel >= 0 {
		return &kernel
	}
	return nil
}

func summarise(s Series, discard int) PathResult {
	p := s.Path
	r := PathResult{
		Name:              p.Name(),
		Relay:             p.Relay,
		ClientTransport:   p.Client,
		UpstreamTransport: p.Upstream,
		Hops:              p.Hops,
		Threads:           s.Setting.Threads,
		ServiceTimeUs:     float64(s.Setting.ServiceTime.Nanoseconds()) / 1e3,
		Size:              s.Setting.Size,
		Rows:              s.Setting.Rows,
		Regime:            s.Setting.Regime,
		Placement:         s.Placement,
		RelayCPUUs:        s.RelayCPUUs,
		Resources:         s.Resources,
		Kworkers:          s.Kworkers,
		Endpoints:         s.Endpoints,
		Connect:           s.Connect,
		RelayWakeUs:       s.RelayWakeUs,
		ClientWakeUs:      s.ClientWakeUs,
		Trace:             s.Trace,
		traceNote:         s.TraceNote,
		path:              p,
	}
	var tps, connect []float64
	p50s := []float64{}
	var lats []stats.Latency
	var merged *stats.Histogram
	for i, smp := range s.Samples {
		k := s.kept(i, discard)
		r.Rounds = append(r.Rounds, Round{
			Index: i, Kept: k, P50: smp.Latency.P50, P95: smp.Latency.P95, P99: smp.Latency.P99,
			TPS: smp.TPS, Errors: smp.Errors, Failed: smp.Failed,
		})
		if smp.Failed != "" {
			r.Failed++
		}
		if !k {
			continue
		}
		r.Errors += smp.Errors
		r.Ignored += smp.Ignored
		tps = append(tps, smp.TPS)
		p50s = append(p50s, smp.Latency.P50)
		connect = append(connect, smp.Connect)
		lats = append(lats, smp.Latency)
		if smp.Hist != nil {
			if merged == nil {
				merged = stats.NewHistogram()
			}
			merged.Merge(smp.Hist)
		}
	}
	r.RoundsP50Us = p50s
	r.Unmeasured = len(p50s) == 0
	if r.Rounds == nil {
		r.Rounds = []Round{} // a row an interrupted run never reached
	}
	var why *Judged
	r.Stable, why = stability(p50s)
	if why != nil {
		r.Instability = &Instability{Judged: why}
	}
	if s.Trace != nil {
		r.Trace = traceSummary(s, p50s, r.Stable)
	}
	r.tps = tps
	if len(tps) > 0 {
		e := series.Analyze(tps, 0)
		r.TPS, r.TPSCI95 = e.Mean, e.CI95
		r.ConnectUs = series.Analyze(connect, 0).Mean
	}
	if merged != nil && merged.Count() > 0 && len(lats) == countHists(s, discard) {
		r.Hist = merged
		r.LatencyUs = latencyUs(stats.LatencyOf(merged))
	} else {
		r.LatencyUs = meanLatency(lats)
	}
	return r
}

// traceSummary is s's traced round set against its kept rounds' p50s:
// what tracing added, the host's pace between them, and the kernel's
// count of the relay's CPU per traced request.
func traceSummary(s Series, p50s []float64, stable bool) *Trace {
	t := *s.Trace
	m := t.UntracedP50Us
	if m <= 0 {
		m = stats.Median(p50s)
	}
	if m > 0 {
		t.OverheadPct = 100 * (t.TracedP50Us - m) / m
	}
	if kept := stats.Median(p50s); kept > 0 && t.UntracedP50Us > 0 {
		t.Pace = kept / t.UntracedP50Us
	}
	if stable {
		t.Found = nil // it names what moved an unstable path's rounds
	}
	if s.RelayCPUUs != nil && s.Path.Relay != Direct {
		us := *s.RelayCPUUs
		if k := t.StatementsPerEvent; k > 1 {
			us /= k // relay_cpu_us is per event, a traced request one statement
		}
		t.SchedstatRelayCPUUs = &us
	}
	if d, ok := t.SchedstatDiffPct(); ok {
		t.SchedstatDiff = &d
	}
	return &t
}

// regimes counts the distinct placement regimes among the series.
func regimes(all []Series) int {
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.Setting.Regime] = true
	}
	return len(seen)
}

func countHists(s Series, discard int) int {
	n := 0
	for i, smp := range s.Samples {
		if s.kept(i, discard) && smp.Hist != nil {
			n++
		}
	}
	return n
}

// latencyUs keeps the fields of l that the report carries.
func latencyUs(l stats.Latency) Latency {
	return Latency{Min: l.Min, Avg: l.Avg, P50: l.P50, P95: l.P95, P99: l.P99, P999: l.P999, Max: l.Max}
}

// meanLatency averages rounds' summaries field by field, when no histogram
// came back to merge. (The mean of p99s is not the p99 of the union, which
// is why histograms are preferred.)
func meanLatency(ls []stats.Latency) Latency {
	var m Latency
	if len(ls) == 0 {
		return m
	}
	for _, l := range ls {
		m.Min += l.Min
		m.Avg += l.Avg
		m.P50 += l.P50
		m.P95 += l.P95
		m.P99 += l.P99
		m.P999 += l.P999
		m.Max += l.Max
	}
	n := float64(len(ls))
	return Latency{m.Min / n, m.Avg / n, m.P50 / n, m.P95 / n, m.P99 / n, m.P999 / n, m.Max / n}
}

// baselineOf finds the direct path s is compared with: same stage and
// thread count, same client transport; when that direct path was not
// measured (a real server with no UNIX socket), the direct TCP path.
func baselineOf(all []Series, s Series) *Series {
	for _, want := range []Path{s.Path.Baseline(), DirectPath(TCP)} {
		for i := range all {
			b := &all[i]
			if b.Setting == s.Setting && b.Path == want {
				return b
			}
		}
	}
	return nil
}

// baselineIndex is the index in all of s's baseline (baselineOf), -1
// when it has none.
func baselineIndex(all []Series, s Series) int {
	b := baselineOf(all, s)
	if b == nil {
		return -1
	}
	for j := range all {
		if all[j].Path == b.Path && all[j].Setting == b.Setting {
			return j
		}
	}
	return -1
}

// added pairs s's rounds with base's: same round, both kept.
func added(s, base Series, discard int) *Added {
	var a50, b50, a99, b99 []float64
	for i := range min(len(s.Samples), len(base.Samples)) {
		if !s.kept(i, discard) || !base.kept(i, discard) {
			continue
		}
		a50 = append(a50, s.Samples[i].Latency.P50)
		b50 = append(b50, base.Samples[i].Latency.P50)
		a99 = append(a99, s.Samples[i].Latency.P99)
		b99 = append(b99, base.Samples[i].Latency.P99)
	}
	return addedFrom(base.Path.Name(), a50, b50, a99, b99)
}

// addedFrom is the added latency of paired rounds: a50 and a99 the path's
// round figures, b50 and b99 its baseline's in the same pairs; nil when
// there are none.
func addedFrom(baseline string, a50, b50, a99, b99 []float64) *Added {
	if len(a50) == 0 {
		return nil
	}
	// series.Paired gives b-a: the path over its baseline.
	d50, _ := series.Paired(b50, a50)
	d99, _ := series.Paired(b99, a99)
	// The median of the paired differences, with its order-statistic
	// interval: on a VM one round in a few lands in another placement or
	// meets a neighbour's burst, and the mean of four or six pairs
	// follows that round. The median is the hop a typical round measured.
	a := &Added{Baseline: baseline, P50: d50.Median, P99: d99.Median, CI95P50: d50.MedianCI95,
		CILevel: d50.MedianCILevel, Pairs: d50.N}
	// The share is of the same statistic over the same rounds: the median
	// of the baseline's round p50s that the differences were paired
	// with, not its merged histogram's p50.
	if m := stats.Median(b50); m > 0 {
		a.P50Pct = 100 * a.P50 / m
	}
	return a
}

type chainKey struct {
	setting Setting
	relay   Relay
	t       Transport
}

// fitChains fits p50 against hop count for every relay and transport that
// was measured at two or more hop counts, with every kept round a point, so
// the slope's interval reflects the spread between rounds.
func fitChains(all []Series, sums []PathResult, discard int) []Chain {
	var order []chainKey
	members := map[chainKey][]int{}
	for i, s := range all {
		p := s.Path
		if p.Hops == 0 || p.Client != p.Upstream || !p.Relay.Chainable() {
			continue
		}
		k := chainKey{s.Setting, p.Relay, p.Client}
		if _, ok := members[k]; !ok {
			order = append(order, k)
			for j, d := range all { // hop count 0: the direct path
				if d.Setting == s.Setting && d.Path == DirectPath(p.Client) {
					members[k] = append(members[k], j)
				}
			}
		}
		members[k] = append(members[k], i)
	}
	var chains []Chain
	for _, k := range order {
		idx := members[k]
		slices.SortStableFunc(idx, func(a, b int) int { return all[a].Path.Hops - all[b].Path.Hops })
		c := Chain{Relay: k.relay, Transport: k.t, Regime: k.setting.Regime, Threads: k.setting.Threads, ServiceTimeUs: float64(k.setting.ServiceTime.Nanoseconds()) / 1e3}
		var x, y []float64
		for _, i := range idx {
			s := all[i]
			c.Hops = append(c.Hops, s.Path.Hops)
			c.P50Us = append(c.P50Us, sums[i].LatencyUs.P50)
			for r, smp := range s.Samples {
				if s.kept(r, discard) {
					x = append(x, float64(s.Path.Hops))
					y = append(y, smp.Latency.P50)
				}
			}
		}
		f, err := series.FitLine(x, y)
		if err != nil {
			continue // one hop count only: nothing to fit
		}
		c.PerHopUs, c.PerHopCI95, c.InterceptUs, c.R2, c.Points = f.Slope, f.SlopeCI95, f.Intercept, f.R2, f.N
		chains = append(chains, c)
	}
	return chains
}
