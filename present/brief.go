package present

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/results/hop"
)

// TextStyle is which text report Write prints.
type TextStyle int

const (
	// Brief is the report a person reads in one screen (WriteBrief):
	// hopbench's default.
	Brief TextStyle = iota
	// Full is every table and verdict within TextWidth (WriteText):
	// hopbench --verbose, and report.txt of --out.
	Full
	// Wide is every column, up to 250 wide (WriteWideText): --wide.
	Wide
)

// WriteBrief writes the one-screen report: the machine, and what
// happened to the whole machine during the run (the host changing speed,
// rounds spread on every path) said once; then per regime each path's
// added p50 with its interval and the biggest part of its split; then
// the paths flagged unstable, a line each, and the grouped verdicts.
// Everything else is in WriteText (--verbose), the JSON and report.html.
func WriteBrief(w io.Writer, r *hop.Report) error {
	t := &text{w: w}
	t.machine(r)
	if r.Machine != nil {
		t.line("")
	}
	writeHosts(t, r)
	groups := regimeGroups(r.Paths)
	notes := map[string]string{}
	for _, g := range r.Regimes {
		notes[g.Name] = g.Note
	}
	sweep := sweeps(r.Paths)
	flagged := 0
	for _, p := range r.Paths {
		if !p.Stable && p.UnstableReason != "" {
			flagged++
		}
	}
	grouped := len(groups) > 1
	for i, g := range groups {
		if grouped {
			if i > 0 {
				t.line("")
			}
			head := g.name
			if n := notes[g.name]; n != "" {
				head += " (" + n + ")"
			}
			t.wrap(head+":", "  ")
		}
		t.trimmedTable(func(tw io.Writer) {
			width := shortWidth(g.paths, grouped)
			head := fmt.Sprintf("%-*s\t%sadded p50\t95%% CI\tp50 µs\t%-*s\t", width, "path", sweep.seriesHead(), partWidth, "biggest part of the split")
			if flagged > 0 {
				head += "rounds\t"
			}
			fmt.Fprintln(tw, head)
			for _, p := range g.paths {
				row := fmt.Sprintf("%-*s\t%s", width, shortName(p, grouped), sweep.seriesCells(p))
				row += addedCells(p) + fmt.Sprintf("%s\t%-*s\t", p50Cell(p), partWidth, biggestPart(p))
				if flagged > 0 {
					row += roundsCell(p) + "\t"
				}
				fmt.Fprintln(tw, row)
			}
		})
	}
	if low := lowestCILevel(r.Paths); low < 0.95 {
		t.wrap(fmt.Sprintf("(with this few rounds an interval [min, max] covers %.0f%%, not 95%%: 7 rounds with one discarded reach 95%%)", 100*low), " ")
	}
	if flagged > 0 {
		t.line("")
		t.line(fmt.Sprintf("unstable (%d of %d paths: rounds disagree, or moved between runs; --verbose says how and why):", flagged, len(r.Paths)))
		var noisy []string
		for _, p := range r.Paths {
			switch {
			case p.Stable || p.UnstableReason == "":
			case p.MachineNoise != "":
				noisy = append(noisy, p.Name)
			default:
				t.line(clip("  "+p.Name+": "+shortReason(p.UnstableReason), TextWidth))
			}
		}
		if len(noisy) > 0 {
			t.wrap(fmt.Sprintf("  and, with the machine's noise: %s", strings.Join(noisy, ", ")), "    ")
		}
	}
	var more []string
	if e := errorLine(r.Paths); e != "" {
		more = append(more, e)
	}
	// Skipped paths, a line per reason: the paths of one missing peer
	// share it.
	var reasons []string
	skipped := map[string][]string{}
	for _, k := range r.Skipped {
		why := strings.TrimPrefix(k.Reason, "driver: ")
		if skipped[why] == nil {
			reasons = append(reasons, why)
		}
		skipped[why] = append(skipped[why], k.Path)
	}
	for _, why := range reasons {
		more = append(more, "skipped "+strings.Join(skipped[why], ", ")+": "+why)
	}
	// The split's disagreements with schedstat, one line for all paths.
	var apart []string
	split := map[string]bool{}
	for _, p := range r.Paths {
		if w := p.Trace.SchedstatWarning(p.Name); w != "" {
			split[w] = true
			diff, _ := p.Trace.SchedstatDiffPct()
			apart = append(apart, fmt.Sprintf("%s (%+.0f%%)", p.Name, diff))
		}
	}
	for _, warn := range r.Warnings {
		if !split[warn] {
			more = append(more, "warning: "+warn)
		}
	}
	if len(apart) > 0 {
		more = append(more, fmt.Sprintf("warning: the traced split and the kernel's count of the relay's CPU per request differ by more than %d%% on %s: take those paths' relay code from the kernel's count (relay_cpu_us)",
			hop.SchedstatTolerancePct, strings.Join(apart, ", ")))
	}
	if r.Tracer != nil && !r.Tracer.On && r.Tracer.Note != "" {
		more = append(more, "not traced: "+r.Tracer.Note)
	}
	if len(more) > 0 {
		t.line("")
		for _, m := range more {
			t.wrap(m, "  ")
		}
	}
	if sweep.Threads {
		writeThreadTable(t, r.Paths)
	}
	if len(r.Chains) > 0 {
		writeChainTable(t, r.Chains)
	}
	verdicts := hop.UnixLegSummary(r)
	for _, v := range r.Verdicts {
		if strings.Contains(v, ": each hop adds ") || strings.Contains(v, ": throughput peaks at ") || strings.Contains(v, "% of the direct path's p50, at ") {
			verdicts = append(verdicts, v) // the sweeps' own findings
		}
	}
	if len(verdicts) > 0 {
		t.line("")
		for _, v := range verdicts {
			t.wrap("* "+v, "  ")
		}
	}
	t.line("")
	t.line("(--verbose: every table and verdict; --out DIR: report.html, JSON and CSV)")
	return t.err
}

// partialLine is a partial report's first line in every text style: the
// figures below it are over the rounds completed, not the run asked for.
func partialLine(r *hop.Report) string {
	return "PARTIAL REPORT: " + r.PartialReason + "; the figures are over the rounds completed"
}

// p50Cell is a path's p50 in the text tables, or "unmeasured" where no
// round of it was kept: its zeros are no figure.
func p50Cell(p hop.PathResult) string {
	if !p.Measured() {
		return "unmeasured"
	}
	return hop.Us(p.LatencyUs.P50)
}

// figureCell is v for a measured path, "-" for one with no kept round.
func figureCell(p hop.PathResult, v string) string {
	if !p.Measured() {
		return "-"
	}
	return v
}

// partWidth pads the split's column: tabwriter right-aligns every cell,
// and a left-aligned phrase reads better.
const partWidth = 22

// biggestPart is the largest part of p's split and its share of the
// added p50, "" where the hop was not split.
func biggestPart(p hop.PathResult) string {
	d := p.Decomposition
	if d == nil || p.AddedUs == nil || p.AddedUs.P50 <= 0 {
		return ""
	}
	name, v := "wake-ups", d.Wakeups
	if d.Measured() && d.RelayCode > v {
		name, v = "relay code", d.RelayCode
	}
	if d.Kernel > v {
		name, v = "kernel legs", d.Kernel
	}
	if d.Endpoints != nil && *d.Endpoints > v {
		name, v = "endpoints", *d.Endpoints
	}
	return fmt.Sprintf("%s %s (%.0f%%)", name, hop.Us(v), 100*v/p.AddedUs.P50)
}

// shortReason is how a path's rounds disagreed, and the likely cause.
func shortReason(reason string) string {
	how, cause, ok := strings.Cut(reason, "; likely cause: ")
	if !ok {
		return reason
	}
	if _, after, ok := strings.Cut(how, ": "); ok {
		how = after // the figures are in the JSON; the test that failed is here
	}
	return how + "; " + cause
}

// clip cuts s to width columns, marking the cut.
func clip(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	rs := []rune(s)
	return string(rs[:width-1]) + "…"
}

// errorLine names the paths with errors or failed rounds in one line.
func errorLine(paths []hop.PathResult) string {
	var parts []string
	for _, p := range paths {
		if p.Errors > 0 || p.Failed > 0 {
			parts = append(parts, fmt.Sprintf("%s %d (%d failed rounds)", p.Name, p.Errors+int64(p.Failed), p.Failed))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "errors, figures suspect: " + strings.Join(parts, ", ")
}

// Events are what happened to the whole machine during the run, each
// said once: the host changing speed between rounds (machine.states[]),
// and rounds that spread on so many paths that the spread is the
// machine's (paths[].machine_noise).
func Events(r *hop.Report) []string {
	var states []machine.State
	if r.Machine != nil {
		states = r.Machine.States
	}
	if states == nil {
		states = hop.States(r.Paths)
	}
	var out []string
	for i := 0; i+1 < len(states); i += 2 {
		fast, slow := states[i], states[i+1]
		if fast.Stage != slow.Stage {
			continue
		}
		out = append(out, fmt.Sprintf("the host changed speed (%s): %s %s µs in rounds %s, %s µs in rounds %s, "+
			"every path with it; each hop is paired with the control's round at the speed it ran at", fast.Stage,
			fast.Control, hop.Us(fast.ControlP50Us), ints(fast.Rounds), hop.Us(slow.ControlP50Us), ints(slow.Rounds)))
	}
	noisy := 0
	for _, p := range r.Paths {
		if p.MachineNoise != "" {
			noisy++
		}
	}
	if noisy > 0 {
		out = append(out, fmt.Sprintf("the machine was noisy: %d of %d paths' rounds spread beyond the stability test, "+
			"too many to be the paths' own; a quieter machine or more rounds (--runs) steady them", noisy, len(r.Paths)))
	}
	if h := r.History; h != nil && h.PastRuns > 0 {
		out = append(out, acrossRuns(*h))
	}
	return out
}

// acrossRuns says what the run was judged against across invocations.
func acrossRuns(h hop.History) string {
	runs := "runs"
	if h.PastRuns == 1 {
		runs = "run"
	}
	if h.Judged == 0 {
		return fmt.Sprintf("across runs: %d earlier %s of this command on this machine in %s; from two on, each "+
			"hop is judged against them", h.PastRuns, runs, h.File)
	}
	line := fmt.Sprintf("across runs: against the last %d %s of this command on this machine, %d of %d hops "+
		"moved more than 15%% from their median and are flagged (%s)", h.PastRuns, runs, h.Flagged, h.Judged, h.File)
	if len(h.HostMoved) == 0 {
		return line
	}
	var moved []string
	for _, m := range h.HostMoved {
		// A path's name holds its regime where the run has two; the
		// stage is said where the name does not say it all.
		name := m.Control
		if m.Stage != "run" && !strings.HasSuffix(name, " "+m.Stage) {
			name += " (" + m.Stage + ")"
		}
		moved = append(moved, fmt.Sprintf("%s %s µs against %s", name, hop.Us(m.P50Us), hop.Us(m.PastMedianUs)))
	}
	return line + "; the host ran at another speed than in them (" + strings.Join(moved, ", ") +
		"): a hop there is flagged only if it moved at that speed too"
}

func ints(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// trimmedTable is table without the spaces a padded last cell leaves.
func (t *text) trimmedTable(fill func(io.Writer)) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fill(tw)
	tw.Flush()
	for _, l := range strings.SplitAfter(buf.String(), "\n") {
		if l != "" {
			t.line(strings.TrimRight(l, " \n"))
		}
	}
}

// machine is the text reports' opening: the machine in a line and what
// happened to it during the run.
func (t *text) machine(r *hop.Report) {
	if r.Partial {
		t.wrap(partialLine(r), "  ")
	}
	if r.Machine != nil {
		t.wrap(r.Machine.Summary(), "  ")
	}
	for _, e := range Events(r) {
		t.wrap(e, "  ")
	}
}
