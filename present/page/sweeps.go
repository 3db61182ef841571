package page

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/phrase"
)

// hasSweeps is whether the run swept threads, service time or chain length.
func hasSweeps(rep *hop.Report) bool {
	return len(rep.Chains) > 0 || len(distinct(rep.Paths, threadsOf)) > 1 || len(distinct(rep.Paths, serviceOf)) > 1
}

func threadsOf(p hop.PathResult) float64 { return float64(p.Threads) }
func serviceOf(p hop.PathResult) float64 { return p.ServiceTimeUs }

func distinct(paths []hop.PathResult, f func(hop.PathResult) float64) []float64 {
	var out []float64
	for _, p := range paths {
		if v := f(p); !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// series groups paths by name (and regime) over x, the other settings at
// their first value, as one line each.
type sweepLine struct {
	name   string
	relay  hop.Relay
	client hop.Transport
	x      []float64
	rows   []hop.PathResult
}

func sweepLines(paths []hop.PathResult, x func(hop.PathResult) float64, same func(a, b hop.PathResult) bool) []sweepLine {
	var out []sweepLine
	for _, p := range paths {
		if !same(p, paths[0]) {
			continue
		}
		i := slices.IndexFunc(out, func(l sweepLine) bool { return l.name == p.Name })
		if i < 0 {
			out = append(out, sweepLine{name: p.Name, relay: p.Relay, client: p.ClientTransport})
			i = len(out) - 1
		}
		out[i].x = append(out[i].x, x(p))
		out[i].rows = append(out[i].rows, p)
	}
	return out
}

// sweeps draws each sweep beside its table: throughput and p50 against
// client threads, the added p50's share of the round trip against the
// backend's service time, and p50 against chain length with its fit.
func (p page) sweeps(rep *hop.Report) {
	if !hasSweeps(rep) {
		return
	}
	p.Printf(`<section id="sweeps"><h2>Sweeps</h2>`)
	if th := distinct(rep.Paths, threadsOf); len(th) > 1 {
		p.threadSweep(rep, th)
	}
	if svc := distinct(rep.Paths, serviceOf); len(svc) > 1 {
		p.serviceSweep(rep, svc)
	}
	if len(rep.Chains) > 0 {
		p.chainSweep(rep)
	}
	p.Printf("</section>\n")
}

// threadSweep draws throughput and p50 against client threads th, one
// line per path at the first service time, size and rows, with its table.
func (p page) threadSweep(rep *hop.Report, th []float64) {
	lines := sweepLines(rep.Paths, threadsOf, func(a, b hop.PathResult) bool {
		return a.ServiceTimeUs == b.ServiceTimeUs && a.Size == b.Size && a.Rows == b.Rows
	})
	var tps, lat []line
	maxTPS, maxLat := 0.0, 0.0
	for _, l := range lines {
		var yt, yl []float64
		for _, r := range l.rows {
			yt, yl = append(yt, r.TPS), append(yl, r.LatencyUs.P50)
			maxTPS, maxLat = max(maxTPS, r.TPS), max(maxLat, r.LatencyUs.P50)
		}
		tps = append(tps, plotLine(l, yt))
		lat = append(lat, plotLine(l, yl))
	}
	xa := axis{label: "client threads (log)", lo: th[0], hi: th[len(th)-1], log: th[0] > 0, ticks: valueTicks(th)}
	if !xa.log {
		xa.ticks = linearTicks(th[0], th[len(th)-1], "")
	}
	p.Printf(`<h3>Client threads</h3><div class="pair"><figure>%s</figure><figure>%s</figure>`,
		figure("Throughput by client threads", xa, axis{label: "requests/s", lo: 0, hi: niceCeil(maxTPS), ticks: linearTicks(0, niceCeil(maxTPS), "")}, tps),
		figure("p50 round trip by client threads", xa, axis{label: "p50 round trip (µs)", lo: 0, hi: niceCeil(maxLat), ticks: linearTicks(0, niceCeil(maxLat), "")}, lat))
	p.table(lines, "threads", func(r hop.PathResult) string {
		return fmt.Sprintf("%.0f tps, %s µs", r.TPS, phrase.Us(r.LatencyUs.P50))
	})
	p.Printf(`</div>`)
}

// serviceSweep draws each relay path's added p50 as a share of its round
// trip against the backend's service times svc, with its table.
func (p page) serviceSweep(rep *hop.Report, svc []float64) {
	var relays []hop.PathResult
	for _, r := range rep.Paths {
		if r.Relay != hop.Direct && r.AddedUs != nil && r.LatencyUs.P50 > 0 {
			relays = append(relays, r)
		}
	}
	lines := sweepLines(relays, serviceOf, func(a, b hop.PathResult) bool {
		return a.Threads == b.Threads && a.Size == b.Size && a.Rows == b.Rows
	})
	var over []line
	top, bottom := 0.0, 0.0
	for _, l := range lines {
		var y []float64
		for _, r := range l.rows {
			v := 100 * r.AddedUs.P50 / r.LatencyUs.P50
			y = append(y, v)
			top, bottom = max(top, v), min(bottom, v)
		}
		over = append(over, plotLine(l, y))
	}
	lo := svc[0]
	xa := axis{label: "backend service time (µs, log)", lo: max(lo, 1), hi: svc[len(svc)-1], log: true}
	xa.ticks = valueTicks(svc)
	if lo <= 0 {
		// 0 has no place on a log axis: it is drawn at 1 µs and says so.
		xa.label = "backend service time (µs, log; 0 drawn at 1)"
		xa.ticks = append(xa.ticks, tick{1, "0"})
		for i := range over {
			for j := range over[i].x {
				over[i].x[j] = max(over[i].x[j], 1)
			}
		}
	}
	p.Printf(`<h3>Backend service time</h3><div class="pair"><figure>%s</figure>`,
		figure("Added p50 as a share of the round trip", xa, axis{label: "added p50 (% of round trip)", lo: floorOf(bottom), hi: niceCeil(top), ticks: linearTicks(floorOf(bottom), niceCeil(top), "%")}, over))
	p.table(lines, "service µs", func(r hop.PathResult) string {
		return fmt.Sprintf("%s µs (%.0f%%)", signed(r.AddedUs.P50), 100*r.AddedUs.P50/r.LatencyUs.P50)
	})
	p.Printf(`</div>`)
}

// chainSweep draws p50 against chain length, one line per relay and
// transport, with a table of each chain's fit: per hop, its interval, the
// intercept and r².
func (p page) chainSweep(rep *hop.Report) {
	var lines []line
	top, most := 0.0, 0
	for _, c := range rep.Chains {
		var x []float64
		for _, h := range c.Hops {
			x = append(x, float64(h))
			most = max(most, h)
		}
		name := fmt.Sprintf("%s %s: %s µs/hop", c.Relay, c.Transport, phrase.Us(c.PerHopUs))
		lines = append(lines, line{name: name, colour: colourOf(string(c.Relay)), width: 1.6, x: x, y: c.P50Us, marks: true})
		for _, v := range c.P50Us {
			top = max(top, v)
		}
	}
	p.Printf(`<h3>Chain length</h3><div class="pair"><figure>%s</figure>`,
		figure("p50 round trip by relay hops", axis{label: "relay hops", lo: 0, hi: float64(max(most, 1)), ticks: linearTicks(0, float64(max(most, 1)), "")},
			axis{label: "p50 round trip (µs)", lo: 0, hi: niceCeil(top), ticks: linearTicks(0, niceCeil(top), "")}, lines))
	p.Printf(`<div class="scroll"><table><tr><th>chain</th><th>hops</th><th>p50 µs</th><th>per hop µs</th><th>95%% CI</th><th>intercept µs</th><th>r²</th></tr>`)
	for _, c := range rep.Chains {
		var hs, ps []string
		for i, h := range c.Hops {
			hs, ps = append(hs, fmt.Sprint(h)), append(ps, phrase.Us(c.P50Us[i]))
		}
		p.Printf(`<tr><td>%s %s</td><td>%s</td><td>%s</td><td>%s</td><td>[%s, %s]</td><td>%s</td><td>%.3f</td></tr>`, esc(string(c.Relay)), esc(string(c.Transport)),
			strings.Join(hs, ", "), strings.Join(ps, ", "), phrase.Us(c.PerHopUs), phrase.Us(c.PerHopCI95[0]), phrase.Us(c.PerHopCI95[1]), phrase.Us(c.InterceptUs), c.R2)
	}
	p.Printf(`</table></div></div>`)
}

// floorOf is 0, or below a negative v the round value niceCeil gives.
func floorOf(v float64) float64 {
	if v >= 0 {
		return 0
	}
	return -niceCeil(-v)
}

func plotLine(l sweepLine, y []float64) line {
	dash := ""
	if l.client == hop.UNIX {
		dash = "6,3"
	}
	width := 1.6
	if l.relay == hop.Direct {
		width = 2.2
	}
	return line{name: l.name, colour: colourOf(string(l.relay)), dash: dash, width: width, x: slices.Clone(l.x), y: y, marks: true}
}

// table is a sweep's figures: one row per line, one column per x.
func (p page) table(lines []sweepLine, head string, cell func(hop.PathResult) string) {
	var xs []float64
	for _, l := range lines {
		for _, x := range l.x {
			if !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
	}
	slices.Sort(xs)
	p.Printf(`<div class="scroll"><table><tr><th>path \ %s</th>`, esc(head))
	for _, x := range xs {
		p.Printf(`<th>%s</th>`, trim(x))
	}
	p.Printf(`</tr>`)
	for _, l := range lines {
		p.Printf(`<tr><td>%s</td>`, esc(l.name))
		for _, x := range xs {
			i := slices.Index(l.x, x)
			if i < 0 {
				p.Printf(`<td>-</td>`)
				continue
			}
			p.Printf(`<td>%s</td>`, esc(cell(l.rows[i])))
		}
		p.Printf(`</tr>`)
	}
	p.Printf(`</table></div>`)
}

// valueTicks labels the values themselves (thread counts, service times).
func valueTicks(vs []float64) []tick {
	var out []tick
	for _, v := range vs {
		if v > 0 && !math.IsInf(v, 0) {
			out = append(out, tick{v, trim(v)})
		}
	}
	return out
}
