// Package phrase writes the figures and the sentences every hopbench
// table, verdict and page shows, from the typed values and findings the
// packages below hand over: one format per kind of figure and one wording
// per kind of finding, so that package present and its page renderer say
// each the same way. Only present and cmd compose words for a person.
package phrase

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/probe/machine"
)

// Us writes a figure in microseconds: whole microseconds from 100 up,
// else one decimal.
func Us(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Sizing is a stage's round sizing as the reports say it.
func Sizing(s hop.RoundSizing) string {
	if s.Error != "" {
		return fmt.Sprintf("rounds %s: %.2f s each (calibration failed: %s)", s.Stage, s.TimeS, s.Error)
	}
	why := fmt.Sprintf("a request took %s µs on %s, so a round holds about %d (want >= %d)",
		Us(s.RequestUs), s.Path, s.Expected, s.Target)
	if s.Capped {
		why += fmt.Sprintf("; the %.0f s budget caps it", s.BudgetS)
	}
	return fmt.Sprintf("rounds %s: %.2f s each: %s", s.Stage, s.TimeS, why)
}

// Wakes is the wake-up check in one sentence: the traced wake-ups by
// kind, then what the probe priced them at.
func Wakes(c *hop.WakeCheck) string {
	part := func(s hop.Spread, what string) string {
		if s.N == 0 {
			return "none " + what
		}
		return fmt.Sprintf("%s µs %s (p25 %s, p75 %s; %d)", Us(s.P50), what, Us(s.P25), Us(s.P75), s.N)
	}
	line := "wake-ups the traced requests waited for, waking to on CPU, median: " +
		part(c.CrossIdle, "onto another, idle CPU") + ", " + part(c.SameCPU, "onto the waker's own")
	if c.ProbeCrossUS > 0 {
		line += fmt.Sprintf("; the probe's pipe wake-up one way: %s µs cross-CPU, %s same CPU, %s µs more across",
			Us(c.ProbeCrossUS), Us(c.ProbeSameUS), Us(c.ProbeExtraUS))
	}
	return line
}

// OutsideBand says why a traced round's split may not describe the
// untraced rounds: its overhead outside its band (a trace's not_trusted).
func OutsideBand(b *hop.OutsideBand) string {
	regime := "spread"
	if b.Holder {
		regime = "packed"
	}
	of := "no floor measured"
	if b.FloorPct != nil {
		of = fmt.Sprintf("floor %.1f%%", *b.FloorPct)
	}
	s := fmt.Sprintf("overhead %+.1f%% outside [%.0f%%, %.1f%%] (%s, %s, records %.1f%%): the traced round did not see the untraced rounds' machine",
		b.Pct, b.Lo, b.Hi, regime, of, b.RecordsPct)
	if b.Twice {
		s += ", twice"
	}
	return s
}

// StateEvidence says what shows a stage's host ran at two speeds (a
// machine state's evidence).
func StateEvidence(e hop.StateEvidence) string {
	s := fmt.Sprintf("%s's round p50s %s µs in rounds %s, %s µs in rounds %s", e.Control,
		usList(e.FastUs), ints(e.FastRounds), usList(e.SlowUs), ints(e.SlowRounds))
	for _, w := range e.With {
		s += fmt.Sprintf("; %s with it (%s and %s µs)", w.Control, usList(w.FastUs), usList(w.SlowUs))
	}
	if e.Others > 0 {
		s += fmt.Sprintf("; %d of %d other paths slower in the same rounds", e.Moved, e.Others)
	}
	return s
}

func ints(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.Itoa(v)
	}
	return strings.Join(parts, ", ")
}

// RegimeNote says where a regime put the components and which share a
// CPU (on two CPUs spread cannot give three components one each), and
// where the server was when hopbench did not start it.
func RegimeNote(r *hop.RegimePlaces) string {
	note := componentsNote(r)
	if s := r.Server; s != nil {
		note += "; " + serverNote(s)
	}
	return note
}

func componentsNote(r *hop.RegimePlaces) string {
	if r.Unpinned {
		return "unpinned: the scheduler places every process, and may place it differently from one round to the next"
	}
	byCPUs := map[string][]string{}
	var order, spec []string
	for _, c := range r.Components {
		list := "any CPU"
		if c.CPUs != "" {
			list = "CPU " + c.CPUs
		}
		spec = append(spec, c.Component+"="+strings.TrimPrefix(list, "CPU "))
		if _, seen := byCPUs[list]; !seen {
			order = append(order, list)
		}
		byCPUs[list] = append(byCPUs[list], c.Component)
	}
	if len(order) == 1 {
		return and(byCPUs[order[0]]) + " on " + order[0]
	}
	var shares []string
	for _, list := range order {
		if cs := byCPUs[list]; len(cs) > 1 {
			shares = append(shares, and(cs)+" share "+list)
		}
	}
	note := strings.Join(spec, " ")
	if len(shares) > 0 {
		note += " (" + strings.Join(shares, "; ") + ": fewer CPUs than components)"
	}
	return note
}

func serverNote(s *hop.ServerPlace) string {
	if s.External {
		return "server external (" + s.Why + ")"
	}
	how := "not pinned by hopbench"
	if s.Pinned {
		how = "pinned by --backend-cpus"
	}
	name := "process " + strconv.Itoa(s.PID)
	if s.Comm != "" {
		name = s.Comm + " " + strconv.Itoa(s.PID)
	}
	return fmt.Sprintf("server (%s) on CPU %s, %s", name, s.CPUs, how)
}

// and lists words as a sentence does: "a, b and c".
func and(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// SchedstatWarning is the warning line for a path whose holder-view split
// gives its relays a time on CPU more than hop.SchedstatTolerancePct from
// what schedstat counted (Trace.SchedstatGap), with what a reader does
// about it; "" where they agree, or where there is nothing to set side by
// side.
func SchedstatWarning(t *hop.Trace, path string) string {
	g, ok := t.SchedstatGap()
	if !ok {
		return ""
	}
	over := "untraced"
	if g.SameRound {
		over = "over the same round"
	}
	return fmt.Sprintf("%s: the traced split gives the relay %s µs on CPU per request and the kernel counted %s %s (%+.0f%%, more than %d%%): take the relay's code from the kernel's count (relay_cpu_us) for this path",
		path, Us(g.SplitUs), Us(g.CountedUs), over, g.DiffPct, hop.SchedstatTolerancePct)
}

// SplitNote is how a traced hop was split, as a decomposition's note says
// it.
func SplitNote(n *hop.SplitNote) string {
	if n.NotSplit {
		return fmt.Sprintf("the traced hop (%s µs) has no part that grew over its baseline's: not split", Us(n.TracedUs))
	}
	note := fmt.Sprintf("relay code as traced, the rest the traced shares of the untraced added p50 (the traced hop: %s µs", Us(n.TracedUs))
	if len(n.Savings) > 0 {
		savings := make([]string, len(n.Savings))
		for i, v := range n.Savings {
			savings[i] = v.Part + " " + Us(v.Us)
		}
		note += fmt.Sprintf(", %s µs of parts that grew less %s µs the path spent less of than its baseline: %s",
			Us(n.GrewUs), Us(n.SavedUs), strings.Join(savings, ", "))
	}
	note += ")"
	if n.RelayOverUs > 0 {
		note += fmt.Sprintf("; the relays' traced time (%s µs) is more than the untraced hop", Us(n.RelayOverUs))
	}
	if n.TracedRatio > 0 {
		note += fmt.Sprintf("; the traced hop is %.1f× the untraced one, so its shares may not hold untraced", n.TracedRatio)
	}
	if n.Untrusted != nil {
		note += "; the split is not trusted: " + OutsideBand(n.Untrusted)
	}
	return note
}

// MachineNoise says why a flagged path's spread is likely the machine's.
func MachineNoise(n *hop.MachineNoise) string {
	return fmt.Sprintf("%d of the run's %d paths' rounds spread so: likely the machine's noise, not this path's", n.Flagged, n.Paths)
}

// Stop says what stopped a run and where: "interrupted by SIGINT after
// round 3 of 11", with the stage (and its regime) when the run has
// several, and the phase when the run was past its rounds or before them.
func Stop(s hop.Stop) string {
	// A cause that names its signal (cli.Interrupted) is said by it.
	var sig interface{ SignalName() string }
	what := fmt.Sprintf("stopped (%v)", s.Cause)
	if errors.As(s.Cause, &sig) {
		what = "interrupted by " + sig.SignalName()
	}
	where := fmt.Sprintf("after round %d of %d", s.Round, s.Rounds)
	if s.Stages > 1 {
		where += fmt.Sprintf(" in stage %d of %d", s.Stage+1, s.Stages)
		if s.Regime != "" {
			where += " (" + s.Regime + ")"
		}
	}
	if p := stopPhase(s.Phase); p != "" {
		where += ", in " + p
	}
	return what + " " + where
}

// stopPhase names a phase a run was stopped in, "" within the rounds.
func stopPhase(p hop.StopPhase) string {
	switch p {
	case hop.PhaseStarting:
		return "starting the components"
	case hop.PhaseSizing:
		return "sizing the rounds"
	case hop.PhaseConnect:
		return "the connect-only series"
	case hop.PhaseTracerFloor:
		return "the tracer's floor"
	case hop.PhaseTraced:
		return "the traced rounds"
	}
	return ""
}

// Fill sets the words of rep that its typed findings carry, where the
// JSON report keeps them as sentences: a partial run's reason (Stop);
// each traced decomposition's note, each flagged path's unstable reason,
// and its machine noise; the tracer's floor note; each trace's cause, p99
// detail and why its split is not trusted.
// A report read back from JSON has its sentences and no findings; Fill
// leaves those as they are, and filling twice changes nothing.
func Fill(rep *hop.Report) {
	if rep.Stop != nil {
		rep.PartialReason = Stop(*rep.Stop)
	}
	if m := rep.Machine; m != nil && m.CrossSkip != nil {
		m.CrossCPUSkipped = OneCPU(*m.CrossSkip)
	}
	for i := range rep.Regimes {
		if g := &rep.Regimes[i]; g.Places != nil {
			g.Note = RegimeNote(g.Places)
		}
	}
	if m := rep.Machine; m != nil && len(rep.StatesEvidence) == len(m.States) {
		for i, e := range rep.StatesEvidence {
			m.States[i].Evidence = StateEvidence(e)
		}
	}
	if rep.Warned != nil {
		rep.Warnings = rep.Warnings[:0]
		for _, w := range rep.Warned {
			if w.Split == "" {
				rep.Warnings = append(rep.Warnings, w.Text)
				continue
			}
			for i := range rep.Paths {
				if p := &rep.Paths[i]; p.Name == w.Split {
					rep.Warnings = append(rep.Warnings, SchedstatWarning(p.Trace, p.Name))
					break
				}
			}
		}
	}
	if t := rep.Tracer; t != nil && t.FloorFailed != nil {
		t.FloorNote = fmt.Sprintf("tracer floor: %d of its %d rounds failed", t.FloorFailed.Failed, t.FloorFailed.Rounds)
	}
	for i := range rep.Paths {
		p := &rep.Paths[i]
		if d := p.Decomposition; d != nil && d.Split != nil {
			d.Note = SplitNote(d.Split)
		}
		if t := p.Trace; t != nil {
			if t.P99Longest != nil {
				t.P99Detail = longest(t.P99Longest)
			}
			if t.Found != nil {
				t.Cause = traceCause(t)
			}
			if t.Untrusted != nil {
				t.NotTrusted = OutsideBand(t.Untrusted)
			}
		}
		if p.Instability != nil {
			p.UnstableReason = Unstable(p)
		}
		if n := p.Noisy; n != nil {
			p.MachineNoise = MachineNoise(n)
		}
	}
}

// Delta is a comparison's change as the tables print it: "~" when not
// significant.
func Delta(pct float64, significant bool) string {
	if !significant {
		return "~"
	}
	return fmt.Sprintf("%+.1f%%", pct)
}

// NoiseFrom names the measurement that set a comparison row's noise.
func NoiseFrom(n compare.NoiseSource) string {
	switch n.Kind {
	case compare.NoiseRepeated:
		return fmt.Sprintf("%d runs of %s %.1f%% apart", n.Runs, n.Of, n.Pct)
	case compare.NoiseControl:
		return fmt.Sprintf("%s moved %.1f%%", n.Of, n.Pct)
	case compare.NoisePace:
		return fmt.Sprintf("%s in %s: pace %.2f", n.Of, n.Run, n.Pace)
	case compare.NoisePeer:
		return fmt.Sprintf("%s (an outside relay) moved %.1f%%", n.Of, n.Pct)
	case compare.NoiseFloor:
		what := "path"
		if n.Hop {
			what = "hop"
		}
		return fmt.Sprintf("one run a side: fresh processes move a %s up to %d%% between runs", what, int(n.Pct))
	case compare.NoiseOneRun:
		return "one run"
	}
	return compare.Unmeasured
}

// Difference says a field that differs between the old run and a new one.
func Difference(d compare.Difference) string {
	return fmt.Sprintf("%s %s: %s -> %s (%s)", d.Kind, d.Field, unset(d.Old), unset(d.New), d.Run)
}

func unset(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}

// Alone says a path only one side of a comparison measured.
func Alone(a compare.Alone) string {
	if a.Beside {
		return a.Label + " has no " + a.Run + " beside it"
	}
	return a.Label + " only in " + a.Run
}

// Trouble says what degraded a side on a row, prefixed with its run where
// the side has several.
func Trouble(t compare.Trouble) string {
	var s string
	switch t.Kind {
	case compare.TroublePartial:
		s = "partial run: " + t.Text
	case compare.TroubleFailed:
		s = fmt.Sprintf("%d failed round%s", t.N, plural(t.N))
		if t.InRound {
			s += fmt.Sprintf(" (round %d: %s)", t.Round, firstLine(t.Text))
		}
	case compare.TroubleErrors:
		s = fmt.Sprintf("%d error%s", t.N, plural(t.N))
	case compare.TroubleUnstable:
		s = "unstable"
		if t.Text != "" {
			s += ": " + t.Text
		}
	}
	if t.Run != "" {
		s = t.Run + ": " + s
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// firstLine is an error's first line, at most 80 characters: a failed
// round's text can hold a peer's whole stderr.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if r := []rune(s); len(r) > 80 {
		s = string(r[:79]) + "…"
	}
	return s
}

// FillComparison sets the words of c that its typed findings carry, where
// the JSON comparison keeps them as sentences: the test and the noise
// method, each row's noise_from and degraded sides' reasons, and the
// unmatched paths. A comparison read back from JSON keeps its own, and
// filling twice changes nothing.
func FillComparison(c *compare.Comparison) {
	if c.Test == "" {
		c.Test = CompareTest
	}
	if c.Noise == "" && c.Method != nil {
		c.Noise = NoiseMethod(*c.Method)
	}
	for i := range c.Rows {
		if r := &c.Rows[i]; r.NoiseFrom == "" {
			r.NoiseFrom = NoiseFrom(r.Noise)
		}
	}
	for i := range c.Rows {
		for j := range c.Rows[i].Degraded {
			if d := &c.Rows[i].Degraded[j]; d.Why == "" {
				d.Why = Trouble(d.Trouble)
			}
		}
	}
	if c.Alone != nil {
		c.Unmatched = c.Unmatched[:0]
		for _, a := range c.Alone {
			c.Unmatched = append(c.Unmatched, Alone(a))
		}
	}
}

// SweptHeads are the columns of what s sweeps' names; none when nothing is swept.
func SweptHeads(s hop.Swept) []string {
	var h []string
	if s.Threads {
		h = append(h, "threads")
	}
	if s.Service {
		h = append(h, "service µs")
	}
	if s.Size {
		h = append(h, "size")
	}
	if s.Rows {
		h = append(h, "rows")
	}
	return h
}

// SweptCells are p's values under SweptHeads.
func SweptCells(s hop.Swept, p hop.PathResult) []string {
	var c []string
	if s.Threads {
		c = append(c, fmt.Sprint(p.Threads))
	}
	if s.Service {
		c = append(c, Us(p.ServiceTimeUs))
	}
	if s.Size {
		c = append(c, fmt.Sprint(p.Size))
	}
	if s.Rows {
		c = append(c, fmt.Sprint(p.Rows))
	}
	return c
}

// CompareTest names the test behind every p value of a comparison of
// hopbench runs.
const CompareTest = "Mann-Whitney U (two-sided) on the kept rounds' p50s; added: on their per-round differences from the direct baseline"

// NoiseMethod says in a sentence how a comparison's rows' noise was
// measured.
func NoiseMethod(m compare.NoiseMethod) string {
	if m.Within {
		return "none: both sides are paths of one run, measured in interleaved rounds"
	}
	s := "the largest of: "
	if m.Repeated {
		s += "how far the repeated runs of a side lie apart on the row; "
	}
	if m.Controls {
		s += "the change of the regime's direct path (the control) between the sides; " +
			"on a relay path, the most an outside relay's added p50 (socat, HAProxy) moved; "
	} else {
		s += "(the runs differ, so their direct paths are no control); "
	}
	return s + "how far a direct path's pace is from 1 in any run"
}

// FillAttachComparison sets the words of an attach comparison: the test
// behind its p values and the noise a change must exceed. One read back
// from JSON keeps its own, and filling twice changes nothing.
func FillAttachComparison(c *compare.AttachComparison) {
	if c.Test == "" {
		c.Test = "Mann-Whitney U (two-sided) on the windows' figures (windows[]), each side's median shown"
	}
	if c.Noise == "" {
		c.Noise = fmt.Sprintf("a change is called only where p ≤ α and it exceeds %d%% of the old side's hop (both directions' mean residences summed)", compare.AttachNoisePct)
	}
}

// OneCPU says why the probe measured no cross-CPU figure, for the
// machine's cross_cpu_skipped.
func OneCPU(o machine.OneCPU) string {
	if o.Asked {
		return "one CPU asked for"
	}
	return fmt.Sprintf("this process may run on CPU %d only", o.CPU)
}
