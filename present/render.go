package present

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/wordwrap"
	"github.com/hoplat/hoplat/present/machineline"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/roles"
)

// WriteJSON writes the report as hoplat.hopbench.v1, indented.
func WriteJSON(w io.Writer, r *hop.Report) error {
	Words(r)
	Words(r)
	return writeIndented(w, r)
}

// writeIndented writes v as indented JSON, "->" in path names as it is.
func writeIndented(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // path names hold "->"
	return enc.Encode(v)
}

// csvHeader names the columns of WriteCSV, one row per path result.
var csvHeader = []string{
	"name", "relay", "client_transport", "upstream_transport", "hops", "threads",
	"service_time_us", "size", "rows",
	"p50_us", "p95_us", "p99_us", "p999_us", "max_us",
	"added_p50_us", "added_p50_ci95_lo", "added_p50_ci95_hi", "added_p99_us", "added_p50_pct", "baseline",
	"tps", "tps_ci95_lo", "tps_ci95_hi", "errors", "failed_rounds", "relay_us", "kernel_us", "connect_us",
}

// WriteCSV writes one row per path result; empty cells where a figure does
// not exist (no baseline, no relay stats, no kept round: an unmeasured
// path). CSV has no place for the report's own fields: a partial report's
// CSV is told from a complete one by its unmeasured rows only, and the
// JSON beside it (--out) says partial.
func WriteCSV(w io.Writer, r *hop.Report) error {
	Words(r)
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	for _, p := range r.Paths {
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
		if !p.Measured() {
			f = func(float64) string { return "" }
		}
		opt := func(v *float64) string {
			if v == nil {
				return ""
			}
			return f(*v)
		}
		row := []string{
			p.Name, string(p.Relay), string(p.ClientTransport), string(p.UpstreamTransport),
			strconv.Itoa(p.Hops), strconv.Itoa(p.Threads), strconv.FormatFloat(p.ServiceTimeUs, 'f', 3, 64), strconv.Itoa(p.Size), strconv.Itoa(p.Rows),
			f(p.LatencyUs.P50), f(p.LatencyUs.P95), f(p.LatencyUs.P99), f(p.LatencyUs.P999), f(p.LatencyUs.Max),
		}
		if a := p.AddedUs; a != nil {
			row = append(row, f(a.P50), f(a.CI95P50[0]), f(a.CI95P50[1]), f(a.P99), f(a.P50Pct), a.Baseline)
		} else {
			row = append(row, "", "", "", "", "", "")
		}
		row = append(row, f(p.TPS), f(p.TPSCI95[0]), f(p.TPSCI95[1]),
			strconv.FormatInt(p.Errors, 10), strconv.Itoa(p.Failed), opt(p.RelayUs), opt(p.KernelUs), f(p.ConnectUs))
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// lowestCILevel is the least coverage of any path's added-p50 interval, 1
// when no path has one.
func lowestCILevel(paths []hop.PathResult) float64 {
	low := 1.0
	for _, p := range paths {
		if a := p.AddedUs; a != nil && a.Pairs > 1 && a.Baseline != p.Name {
			low = min(low, a.CILevel)
		}
	}
	return low
}

// WriteWideText writes the table a reader wants with every column: one
// row per path with its round-trip percentiles, what it adds over the
// direct path (the median of differences paired by round, with its
// interval), throughput and errors; then skipped paths, the sweeps' own
// tables and the verdicts. Its widest lines run to 250 columns and more
// (hopbench --wide); WriteText fits 100.
func WriteWideText(w io.Writer, r *hop.Report) error {
	Words(r)
	if r.Partial {
		for _, l := range wordwrap.Lines(partialLine(r), TextWidth, "  ") {
			fmt.Fprintln(w, l)
		}
	}
	if r.Machine != nil {
		fmt.Fprintln(w, machineline.Line(*r.Machine))
	}
	for _, e := range Events(r) {
		fmt.Fprintln(w, e)
	}
	for _, g := range r.Regimes {
		fmt.Fprintf(w, "regime %s: %s\n", g.Name, g.Note)
	}
	for _, s := range r.Config.RoundSizing {
		fmt.Fprintln(w, phrase.Sizing(s))
	}
	if r.Machine != nil || len(r.Regimes) > 0 {
		fmt.Fprintln(w)
	}
	sweep := sweeps(r.Paths)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	// tabwriter right-aligns every column; padding the names by hand keeps
	// the first one flush left, as a reader scans it.
	width := nameWidth(r.Paths)
	var head []string
	head = append(head, fmt.Sprintf("%-*s\t", width, "path"))
	head = append(head, sweep.seriesHead())
	if sweep.placement {
		head = append(head, "cpus c/r/s\t")
	}
	head = append(head, "p50 µs\tp95 µs\tp99 µs\tadded p50 µs\t95% CI\ttps\terrors\t")
	head = append(head, sweep.lastHead())
	writeHosts(w, r)
	fmt.Fprintln(tw, strings.Join(head, ""))
	for _, p := range r.Paths {
		var row strings.Builder
		fmt.Fprintf(&row, "%-*s\t", width, p.Name)
		row.WriteString(sweep.seriesCells(p))
		if sweep.placement {
			fmt.Fprintf(&row, "%s\t", placementCell(p))
		}
		fmt.Fprintf(&row, "%s\t%s\t%s\t", p50Cell(p), figureCell(p, phrase.Us(p.LatencyUs.P95)), figureCell(p, phrase.Us(p.LatencyUs.P99)))
		row.WriteString(addedCells(p, ", "))
		fmt.Fprintf(&row, "%s\t%d\t", figureCell(p, fmt.Sprintf("%.0f", p.TPS)), p.Errors+int64(p.Failed))
		row.WriteString(sweep.lastCells(p))
		fmt.Fprintln(tw, row.String())
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if low := lowestCILevel(r.Paths); low < 0.95 {
		fmt.Fprintf(w, "(added p50: the median of paired rounds; with this few rounds its interval [min, max] covers %.0f%%, not 95%%: 7 rounds with one discarded reach 95%%)\n", 100*low)
	}
	if sweep.explained {
		if err := writeDecomposition(w, r.Paths); err != nil {
			return err
		}
	}
	if err := writeTraced(w, r); err != nil {
		return err
	}
	for _, x := range r.Config.Proxies {
		if x.Command != "" {
			fmt.Fprintf(w, "proxy    %-20s started per run: %s\n", x.Path, x.Command)
		} else {
			fmt.Fprintf(w, "proxy    %-20s running at %s\n", x.Path, x.Address)
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped  %-20s %s\n", s.Path, s.Reason)
	}
	if sweep.Threads {
		writeThreadTable(w, r.Paths)
	}
	if len(r.Chains) > 0 {
		writeChainTable(w, r.Chains)
	}
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "warning: "+warn)
	}
	if len(r.Verdicts) > 0 {
		fmt.Fprintln(w)
		for _, v := range r.Verdicts {
			fmt.Fprintln(w, "* "+v)
		}
	}
	return nil
}

type sweep struct {
	hop.Swept
	stats, placement, unstable, explained bool
}

func sweeps(paths []hop.PathResult) sweep {
	s := sweep{Swept: hop.SweptOf(paths)}
	for _, p := range paths {
		s.stats = s.stats || (p.RelayUs != nil && p.Decomposition == nil)
		s.explained = s.explained || p.Decomposition != nil
		s.placement = s.placement || p.Placement != nil
		s.unstable = s.unstable || (!p.Stable && p.UnstableReason != "")
	}
	return s
}

// addedCells is a path's added p50 and its interval, in µs, each cell
// ending in a tab: "baseline" on the direct path the others are paired
// with, "-" where nothing was paired. sep parts the interval's ends: ", "
// in the full tables, "," in the brief one.
func addedCells(p hop.PathResult, sep string) string {
	switch a := p.AddedUs; {
	case p.Relay == hop.Direct && a != nil && a.Baseline == p.Name:
		return "baseline\t\t"
	case a == nil:
		return "-\t\t"
	default:
		return fmt.Sprintf("%+.1f\t[%s%s%s]\t", a.P50, phrase.Us(a.CI95P50[0]), sep, phrase.Us(a.CI95P50[1]))
	}
}

// lastHead is the header of the columns that end a path table, each
// ending in a tab: the relays' own figures (--stats) and whether the
// rounds agreed, each only when some path has them.
func (s sweep) lastHead() string {
	head := ""
	if s.stats {
		head += "relay µs\tkernel µs\t"
	}
	if s.unstable {
		head += "rounds\t"
	}
	return head
}

// lastCells is p's cells under lastHead.
func (s sweep) lastCells(p hop.PathResult) string {
	cells := ""
	if s.stats {
		cells += fmt.Sprintf("%s\t%s\t", optUs(p.RelayUs), optUs(p.KernelUs))
	}
	if s.unstable {
		cells += roundsCell(p) + "\t"
	}
	return cells
}

// roundsCell says whether the path's rounds agreed.
func roundsCell(p hop.PathResult) string {
	if p.Stable {
		return "agree"
	}
	return "UNSTABLE"
}

// placementCell is the CPUs the client, relay and server obtained, "-"
// for a component the path has none of; an unpinned path says so.
func placementCell(p hop.PathResult) string {
	if p.Regime == "none" {
		return "unpinned"
	}
	cell := func(c string) string {
		if v, ok := p.Placement[c]; ok && v != "" {
			return v
		}
		return "-"
	}
	return cell(roles.Client) + "/" + cell(roles.Relay) + "/" + cell(roles.Server)
}

// writeDecomposition is where each relay path's added p50 goes: relay
// code, wake-ups, kernel legs, the endpoints' extra CPU ("-" where not
// measured), the mean's excess over the p50 that comes off those CPU
// figures (Decomposition.MeanExcess) and the residual, always shown, with how much of the hop the
// others explain.
func writeDecomposition(w io.Writer, paths []hop.PathResult) error {
	fmt.Fprintln(w)
	from := "kernel legs from the probe; wake-ups from receive stamps or the probe, as \"from\" says"
	for _, p := range paths {
		if p.Decomposition != nil && p.Decomposition.Method == "trace" {
			from = "\"trace\": from the traced requests' critical paths, relay code as traced and the rest scaled to the added p50; else kernel legs from the probe, wake-ups from receive stamps or the probe"
			break
		}
	}
	fmt.Fprintf(w, "where the added p50 goes (µs per request; %s):\n", from)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := nameWidth(paths)
	// A sweep's rows share their names: its columns say which series
	// each is.
	sweep := sweeps(paths)
	fmt.Fprintf(tw, "%-*s\t%sadded\trelay code\twake-ups\tkernel\tendpoints\t-mean excess\tresidual\texplained\tfrom\t\n", width, "path", sweep.seriesHead())
	for _, p := range paths {
		d := p.Decomposition
		if d == nil {
			continue
		}
		fmt.Fprintf(tw, "%-*s\t%s%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", width, p.Name, sweep.seriesCells(p), phrase.Us(p.AddedUs.P50), codeCell(d), phrase.Us(d.Wakeups), phrase.Us(d.Kernel), optUs(d.Endpoints), negUs(d.MeanExcess), phrase.Us(d.Residual), explainedCell(p), d.Method)
	}
	return tw.Flush()
}

// codeCell is the relay code of a split, "-" where it was not measured.
func codeCell(d *hop.Decomposition) string {
	if !d.Measured() {
		return "-"
	}
	return phrase.Us(d.RelayCode)
}

// explainedCell is how much of the path's added p50 the split explains,
// "-" where it has no share (an added p50 not above zero).
func explainedCell(p hop.PathResult) string {
	if p.ExplainedPct == nil {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", *p.ExplainedPct)
}

// seriesHead is the header of the columns that tell a sweep's series
// apart, each ending in a tab; "" when nothing is swept.
func (s sweep) seriesHead() string { return tabbed(phrase.SweptHeads(s.Swept)) }

// seriesCells is p's cells under seriesHead.
func (s sweep) seriesCells(p hop.PathResult) string { return tabbed(phrase.SweptCells(s.Swept, p)) }

func tabbed(cells []string) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(c + "\t")
	}
	return b.String()
}

// negUs is a part that comes off the others, shown with its sign ("-"
// where there is none).
func negUs(v *float64) string {
	if v == nil {
		return "-"
	}
	return phrase.Us(-*v)
}

func optUs(v *float64) string {
	if v == nil {
		return "-"
	}
	return phrase.Us(*v)
}

// writeThreadTable prints RonDB's result format, one line per thread count
// and path: `Threads: 16 Mean: 1684` (transactions per second).
func writeThreadTable(w io.Writer, paths []hop.PathResult) {
	var names []string
	by := map[string][]hop.PathResult{}
	for _, p := range paths {
		key := p.Name
		if p.ServiceTimeUs != 0 || p.Size != paths[0].Size || p.Rows != paths[0].Rows {
			key = fmt.Sprintf("%s (service %s µs, size %d, rows %d)", p.Name, phrase.Us(p.ServiceTimeUs), p.Size, p.Rows)
		}
		if _, ok := by[key]; !ok {
			names = append(names, key)
		}
		by[key] = append(by[key], p)
	}
	for _, n := range names {
		fmt.Fprintf(w, "\n%s\n", n)
		for _, p := range by[n] {
			fmt.Fprintf(w, "Threads: %d Mean: %.0f\n", p.Threads, p.TPS)
		}
	}
}

func writeChainTable(w io.Writer, chains []hop.Chain) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "chain\tthreads\tservice µs\thops\tp50 µs\tper hop µs\t95% CI\tintercept µs\tr²\t")
	for _, c := range chains {
		var hops, p50 []string
		for i, h := range c.Hops {
			hops = append(hops, strconv.Itoa(h))
			p50 = append(p50, phrase.Us(c.P50Us[i]))
		}
		fmt.Fprintf(tw, "%s %s\t%d\t%s\t%s\t%s\t%s\t[%s, %s]\t%s\t%.3f\t\n", c.Relay, c.Transport, c.Threads, phrase.Us(c.ServiceTimeUs),
			strings.Join(hops, ","), strings.Join(p50, ","), phrase.Us(c.PerHopUs), phrase.Us(c.PerHopCI95[0]), phrase.Us(c.PerHopCI95[1]),
			phrase.Us(c.InterceptUs), c.R2)
	}
	tw.Flush()
}

// writeTraced gives each traced path's requests: how many, how well their
// segments partition the round trip, what tracing cost, and the median
// and p99 request; then the p99 request of every relay path split, with
// where its longest stretch went.
func writeTraced(w io.Writer, r *hop.Report) error {
	traced := pathsWith(r.Paths, hasTrace)
	if len(traced) == 0 {
		if note := notTraced(r); note != "" {
			fmt.Fprintf(w, "\nnot traced: %s\n", note)
		}
		return nil
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "traced requests (one more round of each path, through the scheduler and the kernel%s):\n", tracerCost(r))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	width := nameWidth(traced)
	sweep := sweeps(traced)
	fmt.Fprintf(tw, "%-*s\t%srequests\tidentity\tcovered\ttraced p50\toverhead\tp50 request µs\tp99 request µs\t\n", width, "path", sweep.seriesHead())
	for _, p := range traced {
		traceRow(tw, width, p.Name, sweep, p)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range pathsWith(traced, isRelayed) {
		fmt.Fprintln(w, "  "+p99Request(p))
	}
	if r.Tracer != nil && r.Tracer.Wakes != nil {
		fmt.Fprintln(w, "  "+phrase.Wakes(r.Tracer.Wakes))
	}
	return nil
}

// nameWidth is the width of the path column over paths: the longest name,
// or the header's.
func nameWidth(paths []hop.PathResult) int {
	width := len("path")
	for _, p := range paths {
		width = max(width, len(p.Name))
	}
	return width
}

// pathsWith is the paths keep holds for, in their order.
func pathsWith(paths []hop.PathResult, keep func(*hop.PathResult) bool) []hop.PathResult {
	var out []hop.PathResult
	for i := range paths {
		if keep(&paths[i]) {
			out = append(out, paths[i])
		}
	}
	return out
}

func hasTrace(p *hop.PathResult) bool         { return p.Trace != nil }
func hasDecomposition(p *hop.PathResult) bool { return p.Decomposition != nil }

func isRelayed(p *hop.PathResult) bool { return p.Relay != hop.Direct }

// traceRow is a traced path's row of the traced-requests table, under
// name.
func traceRow(tw io.Writer, width int, name string, sw sweep, p hop.PathResult) {
	t := p.Trace
	fmt.Fprintf(tw, "%-*s\t%s%d\t%.1f%%\t%.0f%%\t%s\t%+.0f%%\t%s\t%s\t\n", width, name, sw.seriesCells(p),
		t.Requests, t.IdentityPct, t.CoveragePct, phrase.Us(t.TracedP50Us), t.OverheadPct, phrase.Us(t.P50Us), phrase.Us(t.P99Us))
}

// p99Request is where a traced path's p99 request went.
func p99Request(p hop.PathResult) string {
	t := p.Trace
	line := fmt.Sprintf("%s: the p99 request (%s µs): %s", p.Name, phrase.Us(t.P99Us), t.P99Split)
	if t.P99Detail != "" {
		line += "; " + t.P99Detail
	}
	return line
}

// notTraced is why the run traced nothing when the tracer said so.
func notTraced(r *hop.Report) string {
	if r.Tracer != nil && !r.Tracer.On {
		return r.Tracer.Note
	}
	return ""
}

// tracerCost is the heading's note of what was taken off each traced
// request for the tracer's own records; empty when nothing was.
func tracerCost(r *hop.Report) string {
	if r.Tracer != nil && r.Tracer.PerRecordNs > 0 {
		return fmt.Sprintf("; the tracer's %.0f ns a record taken off", r.Tracer.PerRecordNs)
	}
	return ""
}
