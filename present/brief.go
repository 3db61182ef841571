package present

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/internal/sticky"
	"github.com/hoplat/hoplat/present/machineline"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/probe/machine"
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

// WriteBrief writes the one-screen report: what ran (the workload, the
// machine, the placement of each regime), one sentence per regime with the
// answer, the host's own noise said once; then per regime a table of each
// path's p50, p99 and added p50 with its interval and its split in
// columns that add up to it; then the flagged paths, a whole line each,
// and what a reader can act on. Everything else is in WriteText
// (--verbose), the JSON and report.html.
func WriteBrief(w io.Writer, r *hop.Report) error {
	Words(r)
	t := text{sticky.New(w)}
	if r.Partial {
		t.wrap(partialLine(r), "  ")
	}
	if r.Config.Rounds > 0 {
		t.wrap(workloadLine(r), "  ")
	}
	if r.Machine != nil {
		t.wrap(machineline.Line(*r.Machine), "  ")
	}
	writeHosts(t, r)
	groups := regimeGroups(r.Paths)
	grouped := len(groups) > 1
	if l := placementLine(groups); l != "" {
		t.wrap(l, "  ")
	}
	for _, g := range groups {
		name := ""
		if grouped {
			name = g.name
		}
		if a := answer(name, firstStage(g.paths)); a != "" {
			t.wrap(a, "  ")
		}
	}
	for _, l := range noiseLines(r) {
		t.wrap(l, "  ")
	}
	if l := resolutionLine(r); l != "" {
		t.wrap(l, "  ")
	}
	sweep := sweeps(r.Paths)
	mysql := r.Config.Proto == "mysql"
	for _, g := range groups {
		t.line("")
		if grouped {
			t.line(g.name + ":")
		}
		t.briefTable(g.paths, grouped, sweep, mysql)
	}
	if low := lowestCILevel(r.Paths); low < 0.95 {
		t.wrap(fmt.Sprintf("(with this few rounds an interval [min, max] covers %.0f%%, not 95%%: 7 rounds with one discarded reach 95%%)", 100*low), " ")
	}
	t.flaggedLines(r)
	t.notes(r)
	if sweep.Threads {
		writeThreadTable(t, r.Paths)
	}
	if len(r.Chains) > 0 {
		writeChainTable(t, r.Chains)
	}
	verdicts := unixLegSummary(r)
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
	t.line("(--verbose: every table, verdict and flag's evidence; --out DIR: report.html, JSON and CSV)")
	return t.Err()
}

// briefHead is the path table's header: units in it, the split's parts
// each a column.
func briefHead(width int, sweep sweep, mysql bool) string {
	head := fmt.Sprintf("%-*s\t%sp50 µs\tp99 µs\t", width, "path", sweep.seriesHead())
	if mysql {
		head += "tps\t"
	}
	return head + "added µs\t95% CI\tcode\twake\tkernel\tends\tother\t"
}

// briefTable is one regime's path table; a flagged path's row opens
// with "!".
func (t text) briefTable(paths []hop.PathResult, grouped bool, sweep sweep, mysql bool) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := shortWidth(paths, grouped)
	fmt.Fprintln(tw, briefHead(width, sweep, mysql))
	for _, p := range paths {
		row := fmt.Sprintf("%-*s\t%s%s\t%s\t", width, shortName(p, grouped), sweep.seriesCells(p), p50Cell(p), figureCell(p, phrase.Us(p.LatencyUs.P99)))
		if mysql {
			row += figureCell(p, tpsCell(p.TPS)) + "\t"
		}
		row += addedCells(p, ",") + splitCells(p)
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, " ")
		if i > 0 && flagged(paths[i-1]) {
			l = "!" + strings.TrimPrefix(l, " ")
		}
		t.line(l)
	}
}

// tpsCell is a throughput in a cell no wider than five: thousands past
// 99999.
func tpsCell(v float64) string {
	if v >= 99999.5 {
		return fmt.Sprintf("%.0fk", v/1000)
	}
	return fmt.Sprintf("%.0f", v)
}

// splitCells is p's split under code, wake, kernel, ends and other; "-"
// for a part not measured (other then holds it), blank where the hop was
// not split.
func splitCells(p hop.PathResult) string {
	s := splitParts(p)
	if s == nil {
		return "\t\t\t\t\t"
	}
	code, ends := "-", "-"
	if s.codeMeasured {
		code = phrase.Us(s.code)
	}
	if s.endsMeasured {
		ends = phrase.Us(s.ends)
	}
	other := s.other
	if math.Abs(other) < 0.05 {
		other = 0 // no "-0.0"
	}
	return fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t", code, phrase.Us(s.wake), phrase.Us(s.kernel), ends, phrase.Us(other))
}

// flagged says whether the brief marks p: a relay path whose rounds
// disagreed beyond the host's noise, or that moved between runs. A
// direct path is the yardstick, never marked: its spread is the host's
// noise, said once at the top.
func flagged(p hop.PathResult) bool {
	return !p.Stable && p.UnstableReason != "" && p.Relay != hop.Direct
}

// flaggedLines counts the flagged paths once, then gives each a whole
// line: how far its rounds spread against the direct paths', or how far
// it moved from its earlier runs.
func (t text) flaggedLines(r *hop.Report) {
	var ps []hop.PathResult
	relays := 0
	for _, p := range r.Paths {
		if p.Relay != hop.Direct && p.Measured() {
			relays++
		}
		if flagged(p) {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return
	}
	t.line("")
	t.wrap(fmt.Sprintf("flagged (!) %d of %d relay paths: their figure may not repeat; "+
		"repeat with more --runs, or on a quieter host (--verbose: the rounds and the likely cause)", len(ps), relays), "  ")
	noise := hostNoise(r)
	for _, p := range ps {
		t.wrap("! "+p.Name+": "+flagReason(p, noise), "    ")
	}
}

// notes are the lines a reader can act on: errors, skipped paths, a run
// not traced, and the run's other warnings. The split's disagreement
// with the kernel's count is in --verbose: nothing follows from it here.
func (t text) notes(r *hop.Report) {
	var more []string
	if e := errorLine(r.Paths); e != "" {
		more = append(more, e+": see the server's log, or --verbose for the rounds")
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
	split := map[string]bool{}
	for _, p := range r.Paths {
		if w := phrase.SchedstatWarning(p.Trace, p.Name); w != "" {
			split[w] = true
		}
	}
	for _, warn := range r.Warnings {
		if !split[warn] {
			more = append(more, "warning: "+warn)
		}
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
	return phrase.Us(p.LatencyUs.P50)
}

// figureCell is v for a measured path, "-" for one with no kept round.
func figureCell(p hop.PathResult, v string) string {
	if !p.Measured() {
		return "-"
	}
	return v
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
	Words(r)
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
			fast.Control, phrase.Us(fast.ControlP50Us), ints(fast.Rounds), phrase.Us(slow.ControlP50Us), ints(slow.Rounds)))
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
	return line + "; the host ran at another speed than in them (" + hostMoved(h) +
		"): a hop there is flagged only if it moved at that speed too"
}

// hostMoved lists the controls whose p50 moved with the host's speed, each
// beside its past median.
func hostMoved(h hop.History) string {
	var moved []string
	for _, m := range h.HostMoved {
		// A path's name holds its regime where the run has two; the
		// stage is said where the name does not say it all.
		name := m.Control
		if m.Stage != "run" && !strings.HasSuffix(name, " "+m.Stage) {
			name += " (" + m.Stage + ")"
		}
		moved = append(moved, fmt.Sprintf("%s %s µs against %s", name, phrase.Us(m.P50Us), phrase.Us(m.PastMedianUs)))
	}
	return strings.Join(moved, ", ")
}

func ints(vs []int) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, ", ")
}

// machine is the text reports' opening: the machine in a line and what
// happened to it during the run.
func (t text) machine(r *hop.Report) {
	if r.Partial {
		t.wrap(partialLine(r), "  ")
	}
	if r.Machine != nil {
		t.wrap(machineline.Line(*r.Machine), "  ")
	}
	for _, e := range Events(r) {
		t.wrap(e, "  ")
	}
}
