package phrase

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
)

// Unstable says why p's rounds were flagged, from its Instability: the
// path's unstable_reason.
func Unstable(p *hop.PathResult) string {
	in := p.Instability
	var s string
	switch {
	case in.Across != nil:
		s = acrossRuns(p, in.Across)
	case in.Moved != nil:
		m := in.Moved
		s = fmt.Sprintf("round p50s %s µs: max/min %.2f > %g while the machine changed speed under the same cycles; likely cause: the machine: %s's rounds moved (%s µs) with its client's CPU time per request, so this path's figure is a median over two states of the machine",
			usList(m.Values), m.MaxMin, m.Limit, m.Baseline, usList(m.BaselineUs))
	default:
		if in.Judged != nil {
			s = judged(in.Judged)
		}
		if in.Cause != nil {
			s += "; likely cause: " + cause(in.Cause, p.Trace)
		}
	}
	if n := in.Noise; n != nil {
		s = fmt.Sprintf("rounds spread %.0f%% (max/min but the extremes), the direct paths' %.0f%% (%s): ",
			n.SpreadPct, n.HostPct, n.Control) + s
	}
	return s
}

// judged says how a path's figures, one a round, disagreed.
func judged(j *hop.Judged) string {
	what, unit, list := "round p50s", " µs", usList
	if j.Paired != "" {
		what, unit, list = "round p50 over "+j.Paired+"'s paired round", "", ratioList
	}
	var s string
	switch j.Kind {
	case hop.DisagreeRatio:
		s = fmt.Sprintf("%s %s%s: max/min %.1f > %g", what, list(j.Values), unit, j.MaxMin, j.Limit)
	case hop.DisagreeSpread:
		s = fmt.Sprintf("%s %s%s: max/min %.2f > %g", what, list(j.Values), unit, j.MaxMin, j.Limit)
	case hop.DisagreeClusters:
		s = fmt.Sprintf("%s %s%s: two clusters, %s and %s%s", what, list(j.Values), unit, list(j.Below), list(j.Above), unit)
	}
	if j.State != "" {
		s = fmt.Sprintf("in the host's %s rounds, %s", j.State, s)
	}
	return s
}

// cause names what most plausibly moved a path's rounds, t its trace.
func cause(c *hop.Cause, t *hop.Trace) string {
	switch c.Kind {
	case hop.CauseUnpinned:
		return "placement: unpinned, the scheduler may place the components on one CPU in one round and on two in the next"
	case hop.CausePlacement:
		return fmt.Sprintf("placement changed between rounds (%s on CPUs %s)", c.Component, c.CPUs)
	case hop.CauseTwoHumped:
		return fmt.Sprintf("two-humped round trips: each round's p50 fell on one hump or the other while throughput agreed within %.0f%% (the mean held: compare tps)", c.Pct)
	case hop.CauseTrace:
		return "the trace shows " + traceCause(t)
	case hop.CauseReference:
		return fmt.Sprintf("the machine: %s moved with it in the same cycles (round p50s %s µs), and the ratio of the two held within %.0f%%, so every round trip changed, not this path",
			c.Reference, usList(c.Values), c.Pct)
	case hop.CauseClientCPU:
		return fmt.Sprintf("the machine: the client's own CPU time per request moved with the round p50s (%s µs), their ratio within %.0f%%: the same work ran slower in the slow rounds, so the host changed, not the path",
			usList(c.Values), c.Pct)
	}
	return "CPU migration or another tenant's load on the pinned CPUs"
}

// acrossRuns says how p's hop moved between runs of the same command
// (p.AcrossRuns).
func acrossRuns(p *hop.PathResult, f *hop.AcrossFlag) string {
	a := p.AcrossRuns
	s := fmt.Sprintf("added p50 %s µs, %+.0f%% from %s µs, the median of this run and the last %d of the same command on this machine (%s µs): its rounds agreed, but the hop moved between runs",
		Us(p.AddedUs.P50), a.OffPct, Us(a.MedianUs), len(a.PastUs), usList(a.PastUs))
	if a.ScaledOffPct != nil {
		s += fmt.Sprintf(", %+.0f%% even at the host's speed in those runs (%s ran %.2f times its p50 there)", *a.ScaledOffPct, f.Baseline, a.HostScale)
	}
	return s + "; likely cause: the host's state between invocations (its other tenants, where it runs the vCPUs, the idle exits' cost)"
}

// usList writes µs figures, comma-separated.
func usList(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = Us(v)
	}
	return strings.Join(parts, ", ")
}

// ratioList writes ratios with two decimals, comma-separated.
func ratioList(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprintf("%.2f", v)
	}
	return strings.Join(parts, ", ")
}

// traceCause says what a path's traced requests show that would move its
// rounds (t.Found): the trace's cause.
func traceCause(t *hop.Trace) string {
	switch f := t.Found; {
	case f == nil:
		return t.Cause
	case f.Migration:
		return fmt.Sprintf("migration: %.0f%% of the traced requests saw a component move between CPUs", f.Pct)
	case f.Runqueue:
		return "runqueue wait: in the p99 request (" + Us(t.P99Us) + " µs) " + longest(t.P99Longest)
	}
	return "the p99 request (" + Us(t.P99Us) + " µs): " + longest(t.P99Longest)
}

// longest says a traced request's longest segment: what a tail request
// waited for (a trace's p99_detail).
func longest(l *hop.Longest) string {
	us := Us(l.Us)
	who := l.Component
	if who == "" {
		who = "no component"
	}
	switch {
	case l.Runnable:
		behind := "an idle CPU's wake-up"
		if l.Behind != nil {
			behind = task(l.Behind)
		}
		return fmt.Sprintf("%s waited %s µs runnable on CPU %d behind %s", who, us, l.CPU, behind)
	case l.Other:
		return fmt.Sprintf("%s µs the events do not explain", us)
	}
	return fmt.Sprintf("%s %s %s µs on CPU %d", who, l.Kind, us, l.CPU)
}

// task names a thread a traced request waited behind: its component on
// the path when the trace followed it, else its command as far as /proc
// still had it.
func task(t *hop.Task) string {
	switch {
	case t.Command != "" && t.Component != "":
		return fmt.Sprintf("the %s (%s %d)", t.Component, t.Command, t.TID)
	case t.Command != "":
		return fmt.Sprintf("%s (%d)", t.Command, t.TID)
	case t.Component != "":
		return fmt.Sprintf("the %s (thread %d)", t.Component, t.TID)
	}
	return "thread " + strconv.Itoa(t.TID) + ", not on the path"
}
