package page

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/internal/sticky"
	"github.com/hoplat/hoplat/present/machineline"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/roles"
)

// FileName is the page WriteFile writes into a run's --out directory.
const FileName = "report.html"

// WriteFile writes the page for rep to file, its links relative to file's
// directory (where present.WriteFiles put the run's other files).
func WriteFile(file string, rep *hop.Report) error {
	f, err := os.Create(file)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	bw := bufio.NewWriter(f)
	if err := Write(bw, rep); err != nil {
		f.Close()
		return fmt.Errorf("report: write %s: %w", file, err)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("report: write %s: %w", file, err)
	}
	return f.Close()
}

// css is the page's whole style: system fonts only (nothing fetched),
// tables that scroll sideways inside their box on a narrow screen rather
// than widening the page, figures that shrink to it.
const css = `
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;padding:12px;max-width:1240px;color:#111;background:#fff}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.25em;margin:1.4em 0 .4em;border-bottom:1px solid #999}h3{font-size:1.05em;margin:1em 0 .3em}
code,pre{font:13px/1.35 ui-monospace,"DejaVu Sans Mono",Menlo,monospace}
pre{white-space:pre-wrap;word-break:break-all;background:#f4f4f4;padding:6px}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;margin:.3em 0}
th,td{padding:3px 6px;border-bottom:1px solid #ddd;text-align:right;vertical-align:top}
th{background:#eee}th:first-child,td:first-child{text-align:left}
td.split{min-width:200px;width:32%;text-align:left}
td.split small{display:block;color:#333}
svg.bar{width:100%;height:16px;display:block}
svg.defs{position:absolute;width:0;height:0}
svg.fig{width:100%;height:auto;display:block}
svg.swatch{vertical-align:middle;margin:0 3px 0 10px}
.ft{font-size:13px;font-weight:600}.tk{font-size:10px}.al{font-size:11px}.lg{font-size:10px}
.nw{white-space:nowrap}
.unstable{font-weight:600}
.unstable::before{content:"\26A0 "}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:10px}
.pair{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}
.pair>figure{flex:1 1 420px;margin:0;min-width:0}.pair>.scroll{flex:1 1 360px}
figure{margin:0}figcaption{font-size:12px;color:#333}
.legend{font-size:13px;margin:.3em 0}
ul.verdicts li{margin:.25em 0}
nav a{margin-right:.8em}
@media (max-width:600px){body{font-size:14px;padding:6px}th,td{padding:2px 4px}td.split{min-width:140px}}
`

// page collects the figures' and tables' markup, keeping the first write
// error.
type page struct{ *sticky.Writer }

func (p page) head(title string) {
	p.Do(func(w io.Writer) error { return Head(w, title) })
}

// Head writes what every page opens with, up to and including <body>: the
// document type, the content policy that lets the page fetch nothing, the
// title and the style. It is the one part all pages share, so a test can
// hold it once and each page's body apart from it.
func Head(w io.Writer, title string) error {
	_, err := fmt.Fprintf(w, `<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"/>
<title>%s</title>
<style>%s</style>
</head>
<body>
`, esc(title), css)
	return err
}

func (p page) foot() { p.Printf("</body>\n</html>\n") }

// Write writes the page for rep to w.
func Write(w io.Writer, rep *hop.Report) error {
	phrase.Fill(rep)
	p := page{sticky.New(w)}
	host := rep.Env.Hostname
	if host == "" {
		host = "this machine"
	}
	p.head("hoplat: what each hop costs on " + host)
	p.Printf("%s\n", patternDefs())
	regimes := regimesOf(rep)
	p.Printf(`<header><h1>What each hop costs on %s</h1>`, esc(host))
	if rep.Partial {
		p.Printf(`<p>PARTIAL REPORT: %s; the figures are over the rounds completed.</p>`, esc(rep.PartialReason))
	}
	p.summary(rep)
	p.Printf(`<nav>`)
	for _, g := range regimes {
		p.Printf(`<a href="#%s">%s</a>`, anchor("regime", g), esc(regimeTitle(g)))
	}
	p.Printf(`<a href="#spectrum">spectrum</a>`)
	if hasSweeps(rep) {
		p.Printf(`<a href="#sweeps">sweeps</a>`)
	}
	p.Printf(`<a href="#verdicts">verdicts</a><a href="#run">the run</a></nav></header>` + "\n")
	for _, g := range regimes {
		p.regime(rep, g)
	}
	p.spectra(rep, regimes)
	p.sweeps(rep)
	p.verdicts(rep)
	p.run(rep)
	p.foot()
	return p.Err()
}

func regimesOf(rep *hop.Report) []string {
	var out []string
	for _, path := range rep.Paths {
		if !slices.Contains(out, path.Regime) {
			out = append(out, path.Regime)
		}
	}
	return out
}

func regimeTitle(g string) string {
	if g == "" {
		return "paths"
	}
	return g
}

// anchor is an id for a section: letters, digits and dashes only.
func anchor(prefix, s string) string {
	var b strings.Builder
	b.WriteString(prefix)
	for _, r := range s {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

// summary is the machine line, the environment and where every component
// ran.
func (p page) summary(rep *hop.Report) {
	if rep.Machine != nil {
		p.Printf(`<p class="machine">%s</p>`, esc(machineline.Line(*rep.Machine)))
	}
	e := rep.Env
	p.Printf(`<p>%s/%s, kernel %s, %s, %d cores, GOMAXPROCS %d, %s, clock %s. Backend %s (%s`,
		esc(e.OS), esc(e.Arch), esc(orDash(e.Kernel)), esc(orDash(e.CPUModel)), e.Cores, e.GOMAXPROCS, esc(e.GoVersion), esc(orDash(e.ClockSource)),
		esc(rep.Config.Backend), esc(rep.Config.Proto))
	if rep.Config.Command != "" {
		p.Printf(", %s", esc(rep.Config.Command))
	}
	p.Printf(`), client threads %s, %d rounds (%d discarded).</p>`, esc(joinInts(rep.Config.Threads)), rep.Config.Rounds, rep.Config.Discard)
	p.Printf(`<div class="scroll"><table><tr><th>regime</th><th>asked</th><th>client</th><th>relay</th><th>server</th><th>who shares a CPU</th></tr>`)
	for _, g := range regimesOf(rep) {
		info := hop.RegimeInfo{Name: g}
		for _, r := range rep.Regimes {
			if r.Name == g {
				info = r
			}
		}
		got := obtained(rep, g)
		p.Printf(`<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`, esc(regimeTitle(g)), esc(orDash(info.Placement)),
			esc(got[roles.Client]), esc(got[roles.Relay]), esc(got[roles.Server]), esc(orDash(info.Note)))
	}
	p.Printf(`</table></div>`)
	for _, h := range rep.Hosts {
		p.Printf(`<p>host %s: %s %s</p>`, esc(h.Name), esc(h.Kind), esc(h.Address))
	}
	split := splitWarnings(rep)
	for _, w := range rep.Warnings {
		if !split[w] {
			p.Printf(`<p class="unstable">warning: %s</p>`, esc(w))
		}
	}
	for _, n := range rep.HostNoise {
		p.Printf(`<p>host noise, %s: the direct paths' rounds spread %.0f%% (%s, max/min of round p50s); a relay path is flagged past %.0f%%: %d of %d are.</p>`,
			esc(n.Stage), n.SpreadPct, esc(n.Control), n.LimitPct, n.Flagged, n.Relays)
	}
}

// splitWarnings are rep's warnings that the traced split and the
// kernel's count of the relay's CPU differ: a caveat on the split, said
// beside the verdicts, not above the tables.
func splitWarnings(rep *hop.Report) map[string]bool {
	out := map[string]bool{}
	for _, path := range rep.Paths {
		if w := phrase.SchedstatWarning(path.Trace, path.Name); w != "" {
			out[w] = true
		}
	}
	return out
}

func joinInts(v []int) string {
	if len(v) == 0 {
		return "1"
	}
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// obtained is the CPUs each component got over a regime's paths, every
// distinct list joined.
func obtained(rep *hop.Report, regime string) map[string]string {
	out := map[string]string{}
	for _, c := range roles.Path {
		var seen []string
		for _, path := range rep.Paths {
			if path.Regime != regime {
				continue
			}
			if v := path.Placement[c]; v != "" && !slices.Contains(seen, v) {
				seen = append(seen, v)
			}
		}
		out[c] = orDash(strings.Join(seen, ", "))
		if regime == "none" {
			out[c] = "unpinned"
		}
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// splitOf is a path's decomposition as the parts' values: positive parts
// add up to the added p50 with the residual, the mean excess comes off.
func splitOf(d *hop.Decomposition) []float64 {
	var ends, excess float64
	if d.Endpoints != nil {
		ends = *d.Endpoints
	}
	if d.MeanExcess != nil {
		excess = -*d.MeanExcess
	}
	return []float64{d.RelayCode, d.Wakeups, d.Kernel, ends, excess, d.Residual}
}

// regime is one regime's path table: round trips, the added p50 with its
// interval and its split drawn as a bar on one scale for the whole table,
// the method, and whether the rounds agreed; then why the unstable paths
// are, and the decompositions' notes.
func (p page) regime(rep *hop.Report, regime string) {
	var paths []hop.PathResult
	for _, path := range rep.Paths {
		if path.Regime == regime {
			paths = append(paths, path)
		}
	}
	p.regimeHead(rep, regime)
	lo, hi := barScale(paths)
	p.Printf(`<p class="legend">Each hop's added p50 split (µs per request; bar scale 0 to %s µs):`, trim(hi))
	for _, pt := range parts {
		p.Printf(`%s%s`, swatch(pt), esc(pt.name))
	}
	p.Printf("</p>\n")
	sw := sweptOf(rep.Paths)
	p.Printf(`<div class="scroll"><table class="paths"><tr><th>path</th>%s<th>p50 µs</th>`, sw.head())
	p.Printf(`<th>p99 µs</th><th>added p50 µs</th><th>95%% CI</th><th>split of the added p50</th><th>method</th><th>tps</th><th>rounds</th></tr>` + "\n")
	for _, path := range paths {
		p.pathRow(path, sw, lo, hi)
	}
	p.Printf("</table></div>\n")
	p.unstable(paths)
	p.decompositionNotes(paths)
	p.Printf("</section>\n")
}

// regimeHead opens the regime's section with its title and note.
func (p page) regimeHead(rep *hop.Report, regime string) {
	info := ""
	for _, r := range rep.Regimes {
		if r.Name == regime {
			info = r.Note
		}
	}
	p.Printf(`<section id="%s"><h2>%s`, anchor("regime", regime), esc(regimeTitle(regime)))
	if info != "" {
		p.Printf(`: %s`, esc(info))
	}
	p.Printf("</h2>\n")
}

// barScale is the split bars' one scale for paths: from the most negative
// part to the largest added p50 or sum of positive parts, rounded up.
func barScale(paths []hop.PathResult) (lo, hi float64) {
	for _, path := range paths {
		if a := path.AddedUs; a != nil && path.Relay != hop.Direct {
			hi = max(hi, a.P50)
			lo = min(lo, a.P50)
		}
		if d := path.Decomposition; d != nil {
			pos, neg := 0.0, 0.0
			for _, v := range splitOf(d) {
				if v > 0 {
					pos += v
				} else {
					neg += v
				}
			}
			hi, lo = max(hi, pos), min(lo, neg)
		}
	}
	return lo, barCeil(hi)
}

// pathRow is one path's row: its round trip, the added p50 with its
// interval and split bar (the direct path is the baseline), tps and
// whether its rounds agreed.
func (p page) pathRow(path hop.PathResult, sw swept, lo, hi float64) {
	p.Printf(`<tr><td>%s</td>%s<td>%s</td><td>%s</td>`, unbroken(path.Name), sw.cells(path), phrase.Us(path.LatencyUs.P50), phrase.Us(path.LatencyUs.P99))
	a := path.AddedUs
	switch {
	case path.Relay == hop.Direct:
		p.Printf(`<td>baseline</td><td></td><td class="split"></td><td></td>`)
	case a == nil:
		p.Printf(`<td>-</td><td></td><td class="split"></td><td></td>`)
	default:
		p.Printf(`<td>%s</td><td>[%s, %s]</td>`, signed(a.P50), phrase.Us(a.CI95P50[0]), phrase.Us(a.CI95P50[1]))
		if d := path.Decomposition; d != nil {
			vals := splitOf(d)
			var words []string
			for i, v := range vals {
				if v != 0 || i == len(vals)-1 {
					words = append(words, fmt.Sprintf("%s %s", parts[i].short, phrase.Us(v)))
				}
			}
			label := strings.Join(words, " · ")
			p.Printf(`<td class="split">%s<small>%s</small></td><td>%s</td>`, stackBar(vals, lo, hi, path.Name+": "+label), esc(label), esc(d.Method))
		} else {
			p.Printf(`<td class="split">%s<small>not split</small></td><td>-</td>`, plainBar(a.P50, lo, hi, path.Name))
		}
	}
	p.Printf(`<td>%.0f</td>`, path.TPS)
	if path.Stable {
		p.Printf(`<td>agree</td></tr>` + "\n")
	} else {
		p.Printf(`<td class="unstable">unstable</td></tr>` + "\n")
	}
}

// unstable lists the paths whose rounds disagreed, each with why and the
// tracer's cause where the reason does not already say it.
func (p page) unstable(paths []hop.PathResult) {
	var unstable []hop.PathResult
	for _, path := range paths {
		if !path.Stable {
			unstable = append(unstable, path)
		}
	}
	if len(unstable) == 0 {
		return
	}
	p.Printf(`<h3>Unstable paths: their rounds disagree, or the hop moved between runs</h3><ul>`)
	for _, path := range unstable {
		cause := ""
		if path.Trace != nil && path.Trace.Cause != "" && !strings.Contains(path.UnstableReason, path.Trace.Cause) {
			cause = "; cause: " + path.Trace.Cause
		}
		p.Printf(`<li><span class="unstable">%s</span>: %s%s</li>`, esc(path.Name), esc(path.UnstableReason), esc(cause))
	}
	p.Printf("</ul>\n")
}

// decompositionNotes says the notes of the paths' decompositions (a
// traced one's excepted): a note that several paths share once, naming
// them.
func (p page) decompositionNotes(paths []hop.PathResult) {
	var notes []string
	on := map[string][]string{}
	for _, path := range paths {
		if d := path.Decomposition; d != nil && d.Note != "" && d.Method != "trace" {
			if _, ok := on[d.Note]; !ok {
				notes = append(notes, d.Note)
			}
			on[d.Note] = append(on[d.Note], path.Name)
		}
	}
	for _, n := range notes {
		p.Printf(`<p><small>%s: %s</small></p>`, esc(strings.Join(on[n], ", ")), esc(n))
	}
}

// swept is hop.Swept in table cells.
type swept struct{ hop.Swept }

func sweptOf(paths []hop.PathResult) swept { return swept{hop.SweptOf(paths)} }

func (s swept) head() string {
	var b strings.Builder
	for _, h := range phrase.SweptHeads(s.Swept) {
		b.WriteString("<th>" + h + "</th>")
	}
	return b.String()
}

// settingText is the cells' text, for a test to find a row by.
func (s swept) settingText(p hop.PathResult) string {
	return strings.Join(phrase.SweptCells(s.Swept, p), " ")
}

func (s swept) cells(p hop.PathResult) string {
	var b strings.Builder
	for _, c := range phrase.SweptCells(s.Swept, p) {
		b.WriteString("<td>" + c + "</td>")
	}
	return b.String()
}

// unbroken is a path name that wraps at its spaces only, never inside
// "unix->tcp" at the hyphen, as a narrow screen would otherwise break it.
func unbroken(name string) string {
	words := strings.Fields(name)
	for i, w := range words {
		words[i] = `<span class="nw">` + esc(w) + `</span>`
	}
	return strings.Join(words, " ")
}

func signed(v float64) string {
	if v >= 0 {
		return "+" + phrase.Us(v)
	}
	return phrase.Us(v)
}

// barCeil rounds v up to a scale end a reader can read a bar against,
// losing little of the bar's width: 1, 1.5, 2, 3, 4, 5, 6 or 8 times a
// power of ten.
func barCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 1.5, 2, 3, 4, 5, 6, 8, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	e := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*e >= v {
			return m * e
		}
	}
	return 10 * e
}

// spectrumOf is a path's latency by percentile: from its merged histogram
// when the run still has it, else from the JSON's percentiles.
func spectrumOf(path hop.PathResult) (pct, us []float64, fromHist bool) {
	if path.Hist != nil {
		if x, y := path.Hist.Spectrum(); len(x) > 0 {
			return x, y, true
		}
	}
	l := path.LatencyUs
	pts := []struct{ q, v float64 }{{0, l.Min}, {50, l.P50}, {95, l.P95}, {99, l.P99}, {99.9, l.P999}, {99.99, l.Max}}
	for _, pt := range pts {
		if pt.v > 0 {
			pct, us = append(pct, pt.q), append(us, pt.v)
		}
	}
	return pct, us, false
}

// spectra draws, per regime, every path's latency spectrum on a log
// percentile axis (HdrHistogram's plot), its direct baseline drawn as the
// reference in each.
func (p page) spectra(rep *hop.Report, regimes []string) {
	p.Printf(`<section id="spectrum"><h2>Latency spectrum</h2>`)
	p.Printf(`<p>Round trip by percentile, the percentile axis as 1/(1−q) on a log scale so that 90%%, 99%% and 99.9%% are evenly spaced; the latency axis is logarithmic. The black line in each is the path's direct baseline.</p>`)
	anyHist := false
	for _, g := range regimes {
		var paths []hop.PathResult
		for _, path := range rep.Paths {
			if path.Regime == g && isFirstSetting(path, rep.Paths) {
				paths = append(paths, path)
			}
		}
		if len(paths) == 0 {
			continue
		}
		if len(regimes) > 1 {
			p.Printf(`<h3>%s</h3>`, esc(regimeTitle(g)))
		}
		lo, hi, qmax := math.Inf(1), 0.0, 10.0
		for _, path := range paths {
			pct, us, _ := spectrumOf(path)
			for _, v := range us {
				lo, hi = min(lo, v), max(hi, v)
			}
			for _, q := range qAxis(pct) {
				qmax = max(qmax, q)
			}
		}
		// The axis runs to the decade of the furthest percentile drawn (the
		// maximum sits at 100(1-1/n)), so the tail is drawn, not stacked at
		// the axis' end.
		qmax = math.Pow(10, math.Ceil(math.Log10(qmax)-1e-9))
		var qticks []tick
		for i, label := range []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"} {
			if v := math.Pow(10, float64(i)); v <= qmax {
				qticks = append(qticks, tick{v, label})
			}
		}
		qticks = append(qticks, tick{2, "50%"})
		if hi <= 0 {
			continue
		}
		lo = math.Pow(10, math.Floor(math.Log10(lo)))
		hi = math.Pow(10, math.Ceil(math.Log10(hi)))
		p.Printf(`<div class="grid">`)
		for _, path := range paths {
			var lines []line
			if path.Relay != hop.Direct {
				if base, ok := baselineOf(path, rep.Paths); ok {
					x, y, h := spectrumOf(base)
					anyHist = anyHist || h
					lines = append(lines, line{name: base.Name, colour: "#000", width: 2.2, x: qAxis(x), y: y})
				}
			}
			x, y, h := spectrumOf(path)
			anyHist = anyHist || h
			dash := ""
			if path.ClientTransport == hop.UNIX {
				dash = "6,3"
			}
			lines = append(lines, line{name: path.Name, colour: colourOf(string(path.Relay)), dash: dash, width: 1.6, x: qAxis(x), y: y, marks: !h})
			p.Printf(`<figure>%s</figure>`, figure(path.Name,
				axis{label: "percentile", lo: 1, hi: qmax, log: true, ticks: qticks},
				axis{label: "round trip (µs, log)", lo: lo, hi: hi, log: true, ticks: logTicks(lo, hi)}, lines))
		}
		p.Printf("</div>\n")
	}
	if !anyHist {
		p.Printf(`<p><small>Drawn from the report's percentiles (min, p50, p95, p99, p99.9, max at 99.99%%): the histograms were not at hand; the .hgrm files hold the full spectra.</small></p>`)
	}
	p.Printf("</section>\n")
}

// qAxis maps percentiles to 1/(1-q), capped at the 99.9999th.
func qAxis(pct []float64) []float64 {
	out := make([]float64, len(pct))
	for i, q := range pct {
		out[i] = min(1/(1-min(q, 99.9999)/100), 1e6)
	}
	return out
}

// isFirstSetting is whether path is at the first backend setting and the
// smallest thread count of the run, where the spectra are compared.
func isFirstSetting(path hop.PathResult, all []hop.PathResult) bool {
	least := all[0].Threads
	for _, q := range all {
		least = min(least, q.Threads)
	}
	q := all[0]
	return path.Threads == least && path.ServiceTimeUs == q.ServiceTimeUs && path.Size == q.Size && path.Rows == q.Rows
}

// baselineOf is the direct path path's added latency was measured against.
func baselineOf(path hop.PathResult, all []hop.PathResult) (hop.PathResult, bool) {
	for _, q := range all {
		if q.Relay == hop.Direct && q.ClientTransport == path.ClientTransport && q.Regime == path.Regime &&
			q.Threads == path.Threads && q.ServiceTimeUs == path.ServiceTimeUs && q.Size == path.Size && q.Rows == path.Rows {
			return q, true
		}
	}
	return hop.PathResult{}, false
}

func (p page) verdicts(rep *hop.Report) {
	p.Printf(`<section id="verdicts"><h2>Verdicts</h2><ul class="verdicts">`)
	for _, v := range rep.Verdicts {
		p.Printf(`<li>%s</li>`, esc(v))
	}
	if len(rep.Verdicts) == 0 {
		p.Printf(`<li>none</li>`)
	}
	p.Printf("</ul>\n")
	for _, s := range rep.Skipped {
		p.Printf(`<p>skipped %s: %s</p>`, esc(s.Path), esc(s.Reason))
	}
	split := splitWarnings(rep)
	for _, w := range rep.Warnings {
		if split[w] {
			p.Printf(`<p>note: %s</p>`, esc(w))
		}
	}
	p.Printf("</section>\n")
}

// run is what made the run and where its files are: the links are
// relative, so the page and its directory travel together.
func (p page) run(rep *hop.Report) {
	p.Printf(`<section id="run"><h2>The run</h2>`)
	cmd := strings.Join(rep.CommandLine, " ")
	if cmd == "" {
		cmd = "(not recorded)"
	}
	p.Printf(`<p>Command line:</p><pre><code>%s</code></pre>`, esc(cmd))
	p.Printf(`<p>hoplat version %s; the run took %.1f s.</p>`, esc(orDash(rep.Version)), rep.Elapsed)
	for _, s := range rep.Config.RoundSizing {
		p.Printf(`<p><small>%s</small></p>`, esc(phrase.Sizing(s)))
	}
	if rep.Tracer != nil {
		if rep.Tracer.On {
			p.Printf(`<p><small>traced: one more round of each path; the tracer's %.0f ns a record taken off</small></p>`, rep.Tracer.PerRecordNs)
			if w := rep.Tracer.Wakes; w != nil {
				p.Printf(`<p><small>%s</small></p>`, esc(phrase.Wakes(w)))
			}
		} else if rep.Tracer.Note != "" {
			p.Printf(`<p><small>not traced: %s</small></p>`, esc(rep.Tracer.Note))
		}
	}
	p.Printf(`<p>Files of the run:</p><ul>`)
	for _, f := range []struct{ name, what string }{
		{"report.json", "the report, hoplat.hopbench.v1"}, {"report.csv", "one row per path"}, {"report.txt", "the text report"},
	} {
		p.Printf(`<li><a href="%s">%s</a>: %s</li>`, f.name, f.name, f.what)
	}
	if len(rep.TraceEvents) > 0 || (rep.Tracer != nil && rep.Tracer.Waterfall > 0) {
		p.Printf(`<li><a href="trace.json">trace.json</a>: the traced requests, for ui.perfetto.dev or chrome://tracing</li>`)
	}
	for _, path := range rep.Paths {
		name := hop.FileName(path, rep.Paths) + ".hgrm"
		p.Printf(`<li><a href="%s">%s</a>: %s, %d threads</li>`, esc(name), esc(name), esc(path.Name), path.Threads)
	}
	p.Printf("</ul></section>\n")
}
