package present

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/phrase"
)

// Verdicts says the analysis's findings (hop.Findings) in sentences, one
// or two a finding, in the order found: the report's verdicts, which its
// JSON carries and every text format prints. A finding about one regime
// names it when the run had several. A sweep's verdicts name the thread
// counts whose sums are suspect.
func Verdicts(r *hop.Report) []string {
	Words(r)
	if r.Sweep != nil {
		return sweepVerdicts(r.Sweep)
	}
	several := len(regimes(r.Paths)) > 1
	out := []string{}
	for _, f := range hop.Findings(r) {
		lines, regime := verdict(f)
		for _, v := range lines {
			if several && regime != nil {
				v = *regime + ": " + v
			}
			out = append(out, v)
		}
	}
	return out
}

// regimes is the distinct regimes of paths.
func regimes(paths []hop.PathResult) map[string]bool {
	seen := map[string]bool{}
	for _, p := range paths {
		seen[p.Regime] = true
	}
	return seen
}

// verdict says f, and points at the regime it holds in when it is about
// one regime's paths compared with each other.
func verdict(f hop.Finding) ([]string, *string) {
	switch f := f.(type) {
	case hop.UnixLeg:
		return []string{unixLegVerdict(f)}, &f.Regime
	case hop.HopCosts:
		return hopCostVerdicts(f), &f.Regime
	case hop.Residence:
		return []string{residenceVerdict(f)}, &f.Regime
	case hop.ConnectSetup:
		return []string{connectVerdict(f)}, &f.Regime
	case hop.IdleExitHops:
		return []string{idleExitVerdict(f)}, &f.Regime
	case hop.Unstable:
		line := fmt.Sprintf("%s: unstable, its figures describe no single round: %s", f.Path, f.Reason)
		if f.StealPct > 0 {
			line += fmt.Sprintf("; the hypervisor stole %.1f%% of the CPU time during the run", f.StealPct)
		}
		return []string{line}, nil
	case hop.ChainFit:
		return []string{chainVerdict(f)}, nil
	case hop.ThreadPeak:
		where := f.Path
		if f.ServiceTimeUs != 0 {
			where += fmt.Sprintf(" (service time %s µs)", phrase.Us(f.ServiceTimeUs))
		}
		return []string{fmt.Sprintf("%s: throughput peaks at %d threads (%.0f tps)", where, f.Threads, f.TPS)}, nil
	case hop.ServiceTimeOverhead:
		return []string{fmt.Sprintf("%s (%s): adds %s µs, %.0f%% of the direct path's p50, at %s µs service time; %s µs, %.0f%%, at %s µs",
			f.Path, plural(f.Threads, "thread"), phrase.Us(f.Low.P50), f.Low.P50Pct, phrase.Us(f.LowUs),
			phrase.Us(f.High.P50), f.High.P50Pct, phrase.Us(f.HighUs))}, nil
	case hop.PathErrors:
		return []string{fmt.Sprintf("%s (%d threads): %d errors (%d failed rounds among them) — its figures are suspect", f.Path, f.Threads, f.Errors, f.Failed)}, nil
	}
	panic(fmt.Sprintf("present: a finding of kind %T has no sentence", f))
}

// noDifference is the one sentence a difference whose interval spans zero
// gets: a mean inside the noise is not a finding in either direction.
func noDifference(what string, ci [2]float64) string {
	return fmt.Sprintf("%s: no measurable difference [95%% CI %s, %s µs]", what, phrase.Us(ci[0]), phrase.Us(ci[1]))
}

// relayLabel names a relay in a verdict; the direct path is "direct".
func relayLabel(r hop.Relay) string {
	if r == hop.Direct {
		return "direct"
	}
	return string(r)
}

func unixLegVerdict(f hop.UnixLeg) string {
	leg := "UNIX client leg"
	if f.Relay == hop.Direct {
		leg = "UNIX socket instead of TCP"
	}
	if !f.Measurable {
		return noDifference(fmt.Sprintf("%s: %s", relayLabel(f.Relay), leg), f.CI95Us)
	}
	verb, save, lo, hi := "saves", f.MedianUs, f.CI95Us[0], f.CI95Us[1]
	if save < 0 {
		verb, save, lo, hi = "costs", -save, -hi, -lo
	}
	return fmt.Sprintf("%s: %s %s %s µs (%s of the TCP path's p50) per request [95%% CI %s, %s]",
		relayLabel(f.Relay), leg, verb, phrase.Us(save), pct(save, f.BaseUs), phrase.Us(lo), phrase.Us(hi))
}

func pct(part, whole float64) string {
	if whole == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*part/whole)
}

// hopCostVerdicts lists each relay's added p50, cheapest first, marking an
// unstable path, and the relays that add nothing measurable.
func hopCostVerdicts(f hop.HopCosts) []string {
	var out []string
	if len(f.Unmeasurable) > 0 {
		names := make([]string, len(f.Unmeasurable))
		for i, r := range f.Unmeasurable {
			names[i] = string(r)
		}
		out = append(out, fmt.Sprintf("no measurable difference from direct tcp: %s", strings.Join(names, ", ")))
	}
	if len(f.Hops) == 0 {
		return out
	}
	var parts []string
	for _, h := range f.Hops {
		part := fmt.Sprintf("%s %s µs", h.Relay, phrase.Us(h.P50Us))
		if !h.Stable {
			part += " (unstable)"
		}
		parts = append(parts, part)
	}
	out = append(out, "hop cost (added p50, TCP client leg): "+strings.Join(parts, ", "))
	line := fmt.Sprintf("the cheapest hop (%s) adds %.0f%% of the direct TCP path's p50", f.Hops[0].Relay, f.Hops[0].P50Pct)
	if last := f.Hops[len(f.Hops)-1]; len(f.Hops) > 1 {
		line += fmt.Sprintf("; the dearest (%s) %.0f%%", last.Relay, last.P50Pct)
	}
	return append(out, line)
}

// idleExitVerdict says how much of each hop is idle exits, on whose CPU,
// and what would remove them.
func idleExitVerdict(f hop.IdleExitHops) string {
	var parts []string
	for _, h := range f.Hops {
		parts = append(parts, fmt.Sprintf("%s %s of %s µs (relay's CPU %s)", h.Relay, phrase.Us(h.IdleUs), phrase.Us(h.AddedUs), phrase.Us(h.RelayCPUUs)))
	}
	line := "idle exits, a CPU leaving idle for a woken task: " + strings.Join(parts, ", ")
	if f.MostOnRelay {
		return line + "; most on the relay's CPU: a relay polling on a CPU of its own removes them (hoprelay --wake auto or adaptive, HAProxy busy-polling)"
	}
	return line + "; most on the client's and server's CPU while they wait: no relay's polling removes them; a placement sharing their CPU, or a cpuidle governor that polls (haltpoll), does"
}

func residenceVerdict(f hop.Residence) string {
	if d := f.Decomposition; d != nil {
		code := fmt.Sprintf("relay code %s", phrase.Us(d.RelayCode))
		if !d.Measured() {
			code = "relay code not measured"
		}
		ends := ""
		if d.Endpoints != nil {
			ends = ", endpoints " + phrase.Us(*d.Endpoints)
		}
		if d.MeanExcess != nil {
			ends += ", less the mean's excess over the p50 " + phrase.Us(*d.MeanExcess)
		}
		return fmt.Sprintf("%s: of its %s µs, %s, wake-ups %s, kernel legs %s%s, residual %s µs: %.0f%% explained",
			f.Path, phrase.Us(f.AddedUs), code, phrase.Us(d.Wakeups), phrase.Us(d.Kernel), ends, phrase.Us(d.Residual), f.ExplainedPct)
	}
	if f.KernelUs == nil {
		return fmt.Sprintf("%s: the relay holds a request %s µs on average, longer than the %s µs the hop adds at the median: requests queue inside it, and the hop does not split into the relay's time and the kernel's",
			f.Path, phrase.Us(f.RelayUs), phrase.Us(f.AddedUs))
	}
	return fmt.Sprintf("%s: the relay holds a request %s µs of the %s µs hop (its code and its read and write calls); wake-ups and the extra loopback legs take the other %s µs",
		f.Path, phrase.Us(f.RelayUs), phrase.Us(f.AddedUs), phrase.Us(*f.KernelUs))
}

func connectVerdict(f hop.ConnectSetup) string {
	var parts []string
	if c := f.Series; c != nil {
		for _, d := range f.Relays {
			parts = append(parts, fmt.Sprintf("%s %+.0f µs (p99 %s)", d.Relay, d.DeltaUs, phrase.Us(d.P99Us)))
		}
		return fmt.Sprintf("connection set-up, dial to quit (p50 of a connect-only series, direct tcp %s µs over %d connects, p99 %s), once per connection: %s",
			phrase.Us(c.P50Us), c.N, phrase.Us(c.P99Us), strings.Join(parts, ", "))
	}
	for _, d := range f.Relays {
		parts = append(parts, fmt.Sprintf("%s %+.0f µs", d.Relay, d.DeltaUs))
	}
	return fmt.Sprintf("connection set-up (p50, direct tcp %s µs), once per connection: %s", phrase.Us(f.DirectUs), strings.Join(parts, ", "))
}

func chainVerdict(f hop.ChainFit) string {
	c := f.Chain
	name := fmt.Sprintf("%s %s chain (%s)", c.Relay, c.Transport, setting(c.Threads, c.ServiceTimeUs))
	if c.Regime != "" {
		name = c.Regime + ": " + name
	}
	if !f.Measurable {
		return noDifference(name+": per hop", c.PerHopCI95)
	}
	return fmt.Sprintf("%s: each hop adds %s µs [95%% CI %s, %s], r² %.3f; client and server fixed cost %s µs",
		name, phrase.Us(c.PerHopUs), phrase.Us(c.PerHopCI95[0]), phrase.Us(c.PerHopCI95[1]), c.R2, phrase.Us(c.InterceptUs))
}

// setting names a thread count and, when there is one, a service time.
func setting(threads int, serviceUs float64) string {
	s := plural(threads, "thread")
	if serviceUs != 0 {
		s += fmt.Sprintf(", service time %s µs", phrase.Us(serviceUs))
	}
	return s
}

// unixLegSummary is the UNIX-leg verdicts of each regime in one line:
// what a UNIX client leg saves on each path where it measurably does,
// and the paths where it does not. The one-screen report prints it;
// Verdicts keeps a sentence per path.
func unixLegSummary(r *hop.Report) []string {
	return unixLegLines(hop.UnixLegsByRegime(r), len(regimes(r.Paths)) > 1)
}

// unixLegLines is a line per regime's UNIX legs, naming the regime when
// there are several.
func unixLegLines(byRegime [][]hop.UnixLeg, several bool) []string {
	var out []string
	for _, legs := range byRegime {
		var saves, costs, none []string
		for _, l := range legs {
			switch {
			case !l.Measurable:
				none = append(none, relayLabel(l.Relay))
			case l.MedianUs > 0:
				saves = append(saves, fmt.Sprintf("%s %s µs [%s, %s]", relayLabel(l.Relay), phrase.Us(l.MedianUs), phrase.Us(l.CI95Us[0]), phrase.Us(l.CI95Us[1])))
			default:
				costs = append(costs, fmt.Sprintf("%s %s µs [%s, %s]", relayLabel(l.Relay), phrase.Us(-l.MedianUs), phrase.Us(-l.CI95Us[1]), phrase.Us(-l.CI95Us[0])))
			}
		}
		var parts []string
		if len(saves) > 0 {
			parts = append(parts, "saves "+strings.Join(saves, ", "))
		}
		if len(costs) > 0 {
			parts = append(parts, "costs "+strings.Join(costs, ", "))
		}
		if len(none) > 0 {
			// Alone, the clause needs its verb: "a UNIX client leg makes
			// no measurable difference on …".
			nothing := "no measurable difference on " + strings.Join(none, ", ")
			if len(parts) == 0 {
				nothing = "makes " + nothing
			}
			parts = append(parts, nothing)
		}
		if len(parts) == 0 {
			continue
		}
		line := "a UNIX client leg " + strings.Join(parts, "; ")
		if several {
			line = legs[0].Regime + ": " + line
		}
		out = append(out, line)
	}
	return out
}

// sweepVerdicts names each thread count of a sweep whose instances saw
// errors or failed runs: its sum is suspect.
func sweepVerdicts(s *hop.Sweep) []string {
	out := []string{}
	for _, row := range s.Rows {
		if row.Errors > 0 || slices.ContainsFunc(row.Instances, func(in hop.SweepInstance) bool { return in.Failed != "" }) {
			out = append(out, fmt.Sprintf("threads %d: %d errors or failed runs: the sum is suspect", row.Threads, row.Errors))
		}
	}
	return out
}
