package present

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/wordwrap"
	"github.com/hoplat/hoplat/present/internal/sticky"
	"github.com/hoplat/hoplat/present/phrase"
)

// TextWidth is the widest line WriteText prints, tables included, for a
// run of hopbench's default paths.
const TextWidth = 100

// WriteText writes the report within TextWidth columns: the machine and
// the placement wrapped, one path table per regime (the regime named once
// above it instead of in every row), the split and the traced requests
// with short column heads, and the verdicts wrapped, leaving out those
// that repeat the split table's rows in prose (the JSON and report.html
// keep them all). WriteWideText has every column.
func WriteText(w io.Writer, r *hop.Report) error {
	Words(r)
	t := text{sticky.New(w)}
	t.machine(r)
	for _, g := range r.Regimes {
		t.wrap(fmt.Sprintf("regime %s: %s", g.Name, g.Note), "  ")
	}
	for _, s := range r.Config.RoundSizing {
		t.wrap(phrase.Sizing(s), "  ")
	}
	if r.Machine != nil || len(r.Regimes) > 0 {
		t.line("")
	}
	writeHosts(t, r)
	groups := regimeGroups(r.Paths)
	sweep := sweeps(r.Paths)
	errorsCol := false
	for _, p := range r.Paths {
		errorsCol = errorsCol || p.Errors > 0 || p.Failed > 0
	}
	for i, g := range groups {
		if len(groups) > 1 {
			if i > 0 {
				t.line("")
			}
			t.line(g.name + ":")
		}
		t.table(func(tw io.Writer) {
			width := shortWidth(g.paths, len(groups) > 1)
			head := fmt.Sprintf("%-*s\t%s", width, "path", sweep.seriesHead())
			if sweep.placement {
				head += "cpus\t"
			}
			head += "p50 µs\tp99 µs\tadded p50\t95% CI\ttps\t"
			if errorsCol {
				head += "errors\t"
			}
			head += sweep.lastHead()
			fmt.Fprintln(tw, head)
			for _, p := range g.paths {
				var row strings.Builder
				fmt.Fprintf(&row, "%-*s\t%s", width, shortName(p, len(groups) > 1), sweep.seriesCells(p))
				if sweep.placement {
					fmt.Fprintf(&row, "%s\t", placementCell(p))
				}
				fmt.Fprintf(&row, "%s\t%s\t", p50Cell(p), figureCell(p, phrase.Us(p.LatencyUs.P99)))
				row.WriteString(addedCells(p, ", "))
				fmt.Fprintf(&row, "%s\t", figureCell(p, fmt.Sprintf("%.0f", p.TPS)))
				if errorsCol {
					fmt.Fprintf(&row, "%d\t", p.Errors+int64(p.Failed))
				}
				row.WriteString(sweep.lastCells(p))
				fmt.Fprintln(tw, row.String())
			}
		})
	}
	if low := lowestCILevel(r.Paths); low < 0.95 {
		t.wrap(fmt.Sprintf("(added p50: the median of paired rounds; with this few rounds its interval [min, max] covers %.0f%%, not 95%%: 7 rounds with one discarded reach 95%%)", 100*low), " ")
	}
	if sweep.unstable {
		t.wrap("(UNSTABLE: the rounds disagree; the verdicts below say how and the likely cause)", " ")
	}
	if sweep.explained {
		t.split(r.Paths, groups)
	}
	t.traced(r, groups)
	for _, s := range r.Skipped {
		t.wrap(fmt.Sprintf("skipped %s: %s", s.Path, s.Reason), "  ")
	}
	if sweep.Threads {
		writeThreadTable(t, r.Paths)
	}
	if len(r.Chains) > 0 {
		writeChainTable(t, r.Chains)
	}
	for _, warn := range r.Warnings {
		t.wrap("warning: "+warn, "  ")
	}
	if len(r.Verdicts) > 0 {
		t.line("")
		for _, v := range r.Verdicts {
			if sweep.explained && restatesSplit(v) {
				continue
			}
			t.wrap("* "+v, "  ")
		}
	}
	return t.Err()
}

// restatesSplit says whether a verdict is the split table's row in prose.
func restatesSplit(v string) bool {
	return strings.Contains(v, ": of its ") && strings.HasSuffix(v, "% explained")
}

type regimeGroup struct {
	name  string
	paths []hop.PathResult
}

// regimeGroups is the paths by regime, in the order the run made them.
func regimeGroups(paths []hop.PathResult) []regimeGroup {
	var out []regimeGroup
	for _, p := range paths {
		i := len(out) - 1
		if i < 0 || out[i].name != p.Regime {
			found := -1
			for j, g := range out {
				if g.name == p.Regime {
					found = j
				}
			}
			if found < 0 {
				out = append(out, regimeGroup{name: p.Regime})
				found = len(out) - 1
			}
			i = found
		}
		out[i].paths = append(out[i].paths, p)
	}
	return out
}

// shortName is p's name without the regime when its table says it.
func shortName(p hop.PathResult, grouped bool) string {
	if grouped {
		return strings.TrimSuffix(p.Name, " "+p.Regime)
	}
	return p.Name
}

func shortWidth(paths []hop.PathResult, grouped bool) int {
	width := len("path")
	for _, p := range paths {
		width = max(width, len(shortName(p, grouped)))
	}
	return width
}

// split is where each relay path's added p50 goes, one table per regime.
func (t text) split(paths []hop.PathResult, groups []regimeGroup) {
	t.line("")
	from := "kernel legs from the probe; wake-ups from receive stamps or the probe, as \"from\" says"
	excess := false
	for _, p := range paths {
		if d := p.Decomposition; d != nil {
			if d.Method == "trace" {
				from = "\"trace\": from the traced requests' critical paths, relay code as traced and the rest scaled to the added p50; else kernel legs from the probe, wake-ups from receive stamps or the probe"
			}
			excess = excess || d.MeanExcess != nil
		}
	}
	t.wrap(fmt.Sprintf("where the added p50 goes (µs per request; code: the relay's, wake: wake-ups, ends: the endpoints' extra CPU, resid: residual; %s):", from), "  ")
	sweep := sweeps(paths)
	for _, g := range groups {
		rows := pathsWith(g.paths, hasDecomposition)
		if len(rows) == 0 {
			continue
		}
		grouped := len(groups) > 1
		t.table(func(tw io.Writer) {
			width := shortWidth(rows, grouped)
			name := "path"
			if grouped {
				name = g.name
			}
			head := fmt.Sprintf("%-*s\t%sadded\tcode\twake\tkernel\tends\t", width, name, sweep.seriesHead())
			if excess {
				head += "-excess\t"
			}
			fmt.Fprintln(tw, head+"resid\texplained\tfrom\t")
			for _, p := range rows {
				d := p.Decomposition
				row := fmt.Sprintf("%-*s\t%s%s\t%s\t%s\t%s\t%s\t", width, shortName(p, grouped), sweep.seriesCells(p), phrase.Us(p.AddedUs.P50), codeCell(d), phrase.Us(d.Wakeups), phrase.Us(d.Kernel), optUs(d.Endpoints))
				if excess {
					row += negUs(d.MeanExcess) + "\t"
				}
				fmt.Fprintf(tw, "%s%s\t%s\t%s\t\n", row, phrase.Us(d.Residual), explainedCell(p), d.Method)
			}
		})
	}
}

// traced is the traced requests per path, then each relay path's p99
// request, wrapped.
func (t text) traced(r *hop.Report, groups []regimeGroup) {
	traced := pathsWith(r.Paths, hasTrace)
	if len(traced) == 0 {
		if note := notTraced(r); note != "" {
			t.line("")
			t.wrap("not traced: "+note, "  ")
		}
		return
	}
	t.line("")
	t.wrap(fmt.Sprintf("traced requests (one more round of each path, through the scheduler and the kernel%s; ident: how far the segments are from the round trip, cover: the share the events explain, cost: the traced round's p50 against untraced rounds of half its length just before and after it):", tracerCost(r)), "  ")
	sweep := sweeps(traced)
	grouped := len(groups) > 1
	for _, g := range groups {
		rows := pathsWith(g.paths, hasTrace)
		if len(rows) == 0 {
			continue
		}
		t.table(func(tw io.Writer) {
			width := shortWidth(rows, grouped)
			name := "path"
			if grouped {
				name = g.name
			}
			fmt.Fprintf(tw, "%-*s\t%srequests\tident\tcover\ttraced p50\tcost\tp50 req µs\tp99 req µs\t\n", width, name, sweep.seriesHead())
			for _, p := range rows {
				traceRow(tw, width, shortName(p, grouped), sweep, p)
			}
		})
	}
	for _, p := range pathsWith(traced, isRelayed) {
		t.wrap("  "+p99Request(p), "      ")
	}
	if r.Tracer != nil && r.Tracer.Wakes != nil {
		t.wrap("  "+phrase.Wakes(r.Tracer.Wakes), "    ")
	}
}

// text writes lines, keeping the first error; it is an io.Writer too,
// for the tables shared with WriteWideText.
type text struct{ *sticky.Writer }

func (t text) line(s string) { fmt.Fprintln(t, s) }

// table lays a tabwriter table out and writes it.
func (t text) table(fill func(io.Writer)) {
	var buf bytes.Buffer
	tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', tabwriter.AlignRight)
	fill(tw)
	tw.Flush()
	t.Write(buf.Bytes())
}

// wrap writes s in lines of at most TextWidth columns, broken at spaces,
// every line after the first starting with indent.
func (t text) wrap(s, indent string) {
	for _, l := range wordwrap.Lines(s, TextWidth, indent) {
		t.line(l)
	}
}
