package present

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/present/phrase"
)

// WriteComparisonJSON writes c as hoplat.compare.v1, indented.
func WriteComparisonJSON(w io.Writer, c *compare.Comparison) error {
	phrase.FillComparison(c)
	return writeIndented(w, c)
}

// WriteDifferences prints what differs between the runs, one line each;
// nothing when they describe the same experiment.
func WriteDifferences(w io.Writer, c *compare.Comparison) error {
	phrase.FillComparison(c)
	if len(c.Differences) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(w, "the runs differ (%d):\n", len(c.Differences)); err != nil {
		return err
	}
	for _, d := range c.Differences {
		if _, err := fmt.Fprintf(w, "  %s\n", phrase.Difference(d)); err != nil {
			return err
		}
	}
	return nil
}

// partialMark is what a side's header line says of its partial runs:
// " (partial: interrupted by SIGINT after round 3 of 11)", each run named
// where the side has several; "" when every run is complete.
func partialMark(c *compare.Comparison, side, name string) string {
	var parts []string
	for _, p := range c.Partial {
		if p.Side != side || p.Name != name {
			continue
		}
		if p.Run != name {
			parts = append(parts, p.Run+": "+p.Reason)
		} else {
			parts = append(parts, p.Reason)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (partial: " + strings.Join(parts, "; ") + ")"
}

// WriteComparison prints the differences first, then one table per new
// run in benchstat's manner: each side's figure, the change, or "~" where
// the U test finds none at alpha or the change is inside the noise (what
// separates two runs of one configuration), its p value, the rounds each
// side kept and the noise; "!" at its start marks a row a side was degraded on, and
// the lines under the table say how, one per side and reason. A side with
// a partial run (hopbench interrupted) says so on its header line.
func WriteComparison(w io.Writer, c *compare.Comparison) error {
	phrase.FillComparison(c)
	if err := WriteDifferences(w, c); err != nil {
		return err
	}
	if len(c.Differences) > 0 {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "p50: median of the kept rounds' p50 round trips (µs); added: the runs' added p50 (µs)\n")
	fmt.Fprintf(w, "~: no significant difference (Mann-Whitney U, α = %g); n: kept rounds old+new\n", c.Alpha)
	if c.Within != "" {
		fmt.Fprintf(w, "two paths of one run, %s, in interleaved rounds: no noise between runs to hold them to\n", c.Within)
	} else {
		fmt.Fprintf(w, "noise: what separates two runs of one configuration here, from the control paths (each\n"+
			"regime's direct path, socat's and HAProxy's hops, and pace) or the repeated runs of a side;\n"+
			"with one run a side %d%% at least, %d%% on a relay path (OLD1 OLD2 -- NEW1 NEW2 measures it);\n"+
			"a change is called only where p ≤ α and it is larger than the noise\n",
			compare.SingleRunFloorPct, compare.SingleRunHopFloorPct)
	}
	short, unmeasured := false, false
	for _, nw := range c.New {
		fmt.Fprintf(w, "\nold %s%s\nnew %s%s\n", c.Old, partialMark(c, "old", c.Old), nw, partialMark(c, "new", nw))
		var table bytes.Buffer
		tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', tabwriter.AlignRight)
		width := len("path")
		for _, r := range c.Rows {
			width = max(width, len(compare.Label(r)))
		}
		fmt.Fprintf(tw, "%-*s\tp50 old\tp50 new\tchange\tp\tn\tnoise\tadded old\tadded new\tchange\tp\t\n", width, "path")
		var degraded []string
		marks := []bool{false} // the header's
		for _, r := range c.Rows {
			if r.NewRun != nw {
				continue
			}
			short = short || len(r.Warnings) > 0
			unmeasured = unmeasured || r.NoiseFrom == compare.Unmeasured
			fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%d+%d\t%s\t", width, compare.Label(r), phrase.Us(r.OldP50Us), phrase.Us(r.NewP50Us),
				phrase.Delta(r.DeltaPct, r.Significant), pValue(r.PValue), r.NOld, r.NNew, noise(r))
			marks = append(marks, len(r.Degraded) > 0)
			for _, d := range r.Degraded {
				degraded = append(degraded, fit(fmt.Sprintf("! %s: %s: %s", compare.Label(r), d.Side, d.Why)))
			}
			if r.OldAddedP50Us == nil {
				fmt.Fprintf(tw, "\t\t\t\t\n")
				continue
			}
			ch, p := "", ""
			if r.AddedSignificant != nil {
				ch, p = phrase.Delta(*r.AddedDeltaPct, *r.AddedSignificant), pValue(*r.AddedPValue)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t\n", phrase.Us(*r.OldAddedP50Us), phrase.Us(*r.NewAddedP50Us), ch, p)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		// A direct path has no added columns: no trailing blanks. A
		// degraded row is marked in the indent every line has.
		for i, l := range strings.Split(strings.TrimSuffix(table.String(), "\n"), "\n") {
			if i < len(marks) && marks[i] {
				l = "!" + l[1:]
			}
			if _, err := fmt.Fprintln(w, strings.TrimRight(l, " ")); err != nil {
				return err
			}
		}
		if len(degraded) > 0 {
			fmt.Fprintf(w, "!: a side was degraded there, and no change is called unless --allow-degraded:\n")
			for _, l := range degraded {
				if _, err := fmt.Fprintf(w, "%s\n", l); err != nil {
					return err
				}
			}
		}
	}
	if short {
		fmt.Fprintf(w, "(some paths kept too few rounds for the U test ever to reach α = %g: run more --runs)\n", c.Alpha)
	}
	if unmeasured {
		fmt.Fprintf(w, "noise -: unmeasured (the runs differ, so their direct paths are no control, and neither pace\n"+
			"nor repeated runs measured it): p alone decides; repeat each side (OLD1 OLD2 -- NEW1 NEW2)\n")
	}
	if drifted(c) {
		fmt.Fprintf(w, "a direct path moved with nothing recorded changed: something outside the runs did (the machine's\n"+
			"load, or a server hoplat does not start), and every p50 moves with it")
		switch relays(c) {
		case addedHeld:
			fmt.Fprintf(w, "; the added columns, each\ntaken against direct inside its own run, cancel it")
		case addedMoved:
			fmt.Fprintf(w, "; the hops' added p50s\nmoved with it, the relays slowed as the machine did: neither column compares the hops")
		}
		fmt.Fprintln(w)
	}
	for _, u := range c.Unmatched {
		fmt.Fprintf(w, "unmatched: %s\n", u)
	}
	return nil
}

// fit cuts a line to 100 columns: a degraded side's full reason (the
// unstable rounds and their traced cause) is in the JSON.
func fit(l string) string {
	if r := []rune(l); len(r) > 100 {
		return string(r[:99]) + "…"
	}
	return l
}

// noise is a row's noise as the table prints it: "-" where nothing
// measured it.
func noise(r compare.Row) string {
	if r.NoiseFrom == compare.Unmeasured {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", r.NoisePct)
}

// What the relay rows' added p50s did between the runs.
const (
	noRelays = iota
	addedHeld
	addedMoved // one at least changed significantly
)

func relays(c *compare.Comparison) int {
	out := noRelays
	for _, r := range c.Rows {
		switch {
		case r.AddedSignificant != nil && *r.AddedSignificant:
			return addedMoved
		case r.OldAddedP50Us != nil:
			out = addedHeld
		}
	}
	return out
}

// drifted reports a direct path whose p50 the U test finds changed
// between runs that describe the same experiment: a shift of the
// machine, not of any hop (the noise every row is then held to).
func drifted(c *compare.Comparison) bool {
	if len(c.Differences) > 0 || c.Within != "" {
		return false
	}
	for _, r := range c.Rows {
		if r.OldAddedP50Us == nil && r.PValue <= c.Alpha {
			return true
		}
	}
	return false
}

func pValue(p float64) string { return fmt.Sprintf("%.3f", p) }

// WriteAttachComparisonJSON writes c as hoplat.compare.v1, indented.
func WriteAttachComparisonJSON(w io.Writer, c *compare.AttachComparison) error {
	phrase.FillAttachComparison(c)
	return writeIndented(w, c)
}

// WriteAttachComparison prints two attach runs side by side in
// benchstat's manner: per direction its residence p50 and each part of
// its split, each side's median over its windows, the change in µs or
// "~" where none is called, the p value and the windows each side had.
func WriteAttachComparison(w io.Writer, c *compare.AttachComparison) error {
	phrase.FillAttachComparison(c)
	var b strings.Builder
	for _, d := range c.Differences {
		fmt.Fprintf(&b, "the runs differ: %s %s -> %s\n", d.Field, orEmpty(d.Old), orEmpty(d.New))
	}
	fmt.Fprintf(&b, "residence_p50: the median of the windows' p50 residence (µs); a part: the median of the\n"+
		"windows' mean per chunk (µs); n: windows old+new\n")
	fmt.Fprintf(&b, "~: no change called (Mann-Whitney U, α = %g, or a change under %d%% of the old hop, both\n"+
		"directions' mean residences summed, which two runs of one proxy move by)\n", c.Alpha, compare.AttachNoisePct)
	fmt.Fprintf(&b, "\nold %s\nnew %s\n", c.Old, strings.Join(c.New, ", "))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := len("figure")
	for _, r := range c.Rows {
		width = max(width, len(r.Name))
	}
	fmt.Fprintf(tw, "%-*s\told\tnew\tchange\tp\tn\t\n", width, "figure")
	short := false
	for _, r := range c.Rows {
		ch := "~"
		if r.Significant {
			ch = fmt.Sprintf("%+.2f", r.DeltaUs)
		}
		short = short || len(r.Warnings) > 0
		fmt.Fprintf(tw, "%-*s\t%.2f\t%.2f\t%s\t%s\t%d+%d\t\n", width, r.Name, r.OldUs, r.NewUs, ch, pValue(r.PValue), r.NOld, r.NNew)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if short {
		fmt.Fprintf(&b, "(some figures had too few windows for the U test ever to reach α = %g: trace longer, or at a\n"+
			"higher --duty)\n", c.Alpha)
	}
	var out strings.Builder
	for _, l := range strings.Split(b.String(), "\n") {
		out.WriteString(strings.TrimRight(l, " "))
		out.WriteByte('\n')
	}
	_, err := io.WriteString(w, strings.TrimSuffix(out.String(), "\n"))
	return err
}

func orEmpty(s string) string {
	if s == "" {
		return "(unset)"
	}
	return s
}
