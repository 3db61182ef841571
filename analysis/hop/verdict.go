package hop

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/stats"
	"github.com/hoplat/hoplat/stats/series"
)

// Verdicts states what a reader wants to know from the report in
// sentences: what a UNIX client leg saves, what each hop costs, how much of
// a hop is the relay's own code, the per-hop slope of each chain, where
// throughput stops scaling, and how overhead falls as the query's own cost
// grows. Comparisons are made at the first stage and smallest thread count,
// where the paths have the most in common.
func Verdicts(r *Report) []string {
	var out []string
	// Each regime is its own experiment: its paths are compared with
	// each other, never with another regime's.
	order, byRegime := regimesOf(r.Paths)
	for _, regime := range order {
		first := firstGroup(byRegime[regime])
		var vs []string
		vs = append(vs, unixLegVerdicts(first)...)
		vs = append(vs, hopCostVerdicts(first)...)
		vs = append(vs, residenceVerdicts(first)...)
		vs = append(vs, connectVerdicts(first)...)
		vs = append(vs, idleExitVerdicts(first)...)
		for _, v := range vs {
			if len(order) > 1 {
				v = regime + ": " + v
			}
			out = append(out, v)
		}
	}
	out = append(out, unstableVerdicts(r)...)
	out = append(out, chainVerdicts(r.Chains)...)
	out = append(out, threadVerdicts(r.Paths)...)
	out = append(out, serviceTimeVerdicts(r.Paths)...)
	for _, p := range r.Paths {
		if p.Errors > 0 || p.Failed > 0 {
			// The same count as the table's errors column: a failed round
			// counts once, as its requests were never tallied.
			out = append(out, fmt.Sprintf("%s (%d threads): %d errors (%d failed rounds among them) — its figures are suspect", p.Name, p.Threads, p.Errors+int64(p.Failed), p.Failed))
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

type group struct {
	serviceTimeUs float64
	size, rows    int
	threads       int
	regime        string
}

func groupOf(p PathResult) group { return group{p.ServiceTimeUs, p.Size, p.Rows, p.Threads, p.Regime} }

// firstGroup is the results of the first stage at its smallest thread
// count, keyed by path.
func firstGroup(paths []PathResult) map[Path]PathResult {
	out := map[Path]PathResult{}
	if len(paths) == 0 {
		return out
	}
	g := groupOf(paths[0])
	for _, p := range paths {
		if p.Threads < g.threads && p.ServiceTimeUs == g.serviceTimeUs && p.Size == g.size && p.Rows == g.rows && p.Regime == g.regime {
			g.threads = p.Threads
		}
	}
	for _, p := range paths {
		if groupOf(p) == g {
			out[p.path] = p
		}
	}
	return out
}

// pairedP50 is the paired difference a−b of the rounds both kept (its
// median and the median's interval are what verdicts quote), and the median
// of a's p50 over those rounds: the base a share of the difference is
// taken of, the same statistic over the same rounds.
func pairedP50(a, b PathResult) (series.Summary, float64, bool) {
	var x, y []float64
	for i := range min(len(a.Rounds), len(b.Rounds)) {
		if a.Rounds[i].Kept && b.Rounds[i].Kept {
			x = append(x, a.Rounds[i].P50)
			y = append(y, b.Rounds[i].P50)
		}
	}
	if len(x) == 0 {
		return series.Summary{}, 0, false
	}
	e, err := series.Paired(y, x)
	return e, stats.Median(x), err == nil
}

// spansZero is a 95% interval that does not tell a difference from none.
func spansZero(ci [2]float64) bool { return ci[0] <= 0 && ci[1] >= 0 }

// noDifference is the one sentence a difference whose interval spans zero
// gets: a mean inside the noise is not a finding in either direction.
func noDifference(what string, ci [2]float64) string {
	return fmt.Sprintf("%s: no measurable difference [95%% CI %s, %s µs]", what, Us(ci[0]), Us(ci[1]))
}

func unixLegVerdicts(g map[Path]PathResult) []string {
	var out []string
	for _, r := range Relays {
		tcp := Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}
		unix := Path{Relay: r, Client: UNIX, Upstream: TCP, Hops: 1}
		leg := "UNIX client leg"
		if r == Direct {
			tcp, unix, leg = DirectPath(TCP), DirectPath(UNIX), "UNIX socket instead of TCP"
		}
		a, okA := g[tcp]
		b, okB := g[unix]
		if !okA || !okB {
			continue
		}
		d, base, ok := pairedP50(a, b)
		if !ok {
			continue
		}
		if spansZero(d.MedianCI95) {
			out = append(out, noDifference(fmt.Sprintf("%s: %s", label(r), leg), d.MedianCI95))
			continue
		}
		verb, save, lo, hi := "saves", d.Median, d.MedianCI95[0], d.MedianCI95[1]
		if save < 0 {
			verb, save, lo, hi = "costs", -save, -hi, -lo
		}
		out = append(out, fmt.Sprintf("%s: %s %s %s µs (%s of the TCP path's p50) per request [95%% CI %s, %s]",
			label(r), leg, verb, Us(save), pct(save, base), Us(lo), Us(hi)))
	}
	return out
}

// relaysIn is every relay the verdicts speak of: hopbench's own, in
// table order, then the user's proxies (--proxy) that g holds, by name.
func relaysIn(g map[Path]PathResult) []Relay {
	out := slices.Clone(Relays[1:])
	var theirs []Relay
	for p := range g {
		if !slices.Contains(Relays, p.Relay) && !slices.Contains(theirs, p.Relay) {
			theirs = append(theirs, p.Relay)
		}
	}
	slices.Sort(theirs)
	return append(out, theirs...)
}

func label(r Relay) string {
	if r == Direct {
		return "direct"
	}
	return string(r)
}

// hopCostVerdicts lists each relay's added p50 with a TCP client leg,
// cheapest first; a relay whose interval spans zero adds nothing
// measurable, and an unstable path is marked so.
func hopCostVerdicts(g map[Path]PathResult) []string {
	var hops []PathResult
	var none []string
	for _, r := range relaysIn(g) {
		p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]
		switch {
		case !ok || p.AddedUs == nil:
		case spansZero(p.AddedUs.CI95P50):
			none = append(none, string(r))
		default:
			hops = append(hops, p)
		}
	}
	var out []string
	if len(none) > 0 {
		out = append(out, fmt.Sprintf("no measurable difference from direct tcp: %s", strings.Join(none, ", ")))
	}
	if len(hops) == 0 {
		return out
	}
	slices.SortStableFunc(hops, func(a, b PathResult) int { return cmpFloat(a.AddedUs.P50, b.AddedUs.P50) })
	var parts []string
	for _, p := range hops {
		part := fmt.Sprintf("%s %s µs", p.Relay, Us(p.AddedUs.P50))
		if !p.Stable {
			part += " (unstable)"
		}
		parts = append(parts, part)
	}
	out = append(out, "hop cost (added p50, TCP client leg): "+strings.Join(parts, ", "))
	line := fmt.Sprintf("the cheapest hop (%s) adds %.0f%% of the direct TCP path's p50", hops[0].Relay, hops[0].AddedUs.P50Pct)
	if last := hops[len(hops)-1]; len(hops) > 1 {
		line += fmt.Sprintf("; the dearest (%s) %.0f%%", last.Relay, last.AddedUs.P50Pct)
	}
	return append(out, line)
}

// idleExitMinShare is the share of a hop's added p50 its idle exits must
// reach for the verdict to name them.
const idleExitMinShare = 0.2

// idleExitVerdicts says, for the relays whose traced hop (TCP client leg)
// is a fifth or more idle exits, how much, on whose CPU, and what would
// remove it: polling on the relay's CPU where the relay has one of its own,
// and the placement or the cpuidle governor where it is the client's and
// server's CPU that goes idle while they wait.
func idleExitVerdicts(g map[Path]PathResult) []string {
	var parts []string
	var relay, ends float64
	for _, r := range relaysIn(g) {
		p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]
		if !ok || p.AddedUs == nil || p.AddedUs.P50 <= 0 || p.Decomposition == nil || p.Decomposition.IdleExit == nil {
			continue
		}
		x := p.Decomposition.IdleExit
		if x.Relay+x.Endpoints < idleExitMinShare*p.AddedUs.P50 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s of %s µs (relay's CPU %s)", r, Us(x.Relay+x.Endpoints), Us(p.AddedUs.P50), Us(x.Relay)))
		relay += x.Relay
		ends += x.Endpoints
	}
	if len(parts) == 0 {
		return nil
	}
	line := "idle exits, a CPU leaving idle for a woken task: " + strings.Join(parts, ", ")
	switch {
	case relay >= ends:
		line += "; most on the relay's CPU: a relay polling on a CPU of its own removes them (hoprelay --wake auto or adaptive, HAProxy busy-polling)"
	default:
		line += "; most on the client's and server's CPU while they wait: no relay's polling removes them; a placement sharing their CPU, or a cpuidle governor that polls (haltpoll), does"
	}
	return []string{line}
}

// unstableVerdicts names every path whose rounds disagree, how, and the
// likely cause; steal during the run is a cause of its own.
func unstableVerdicts(r *Report) []string {
	var out []string
	for _, p := range r.Paths {
		if p.Stable || p.UnstableReason == "" {
			continue
		}
		line := fmt.Sprintf("%s: unstable, its figures describe no single round: %s", p.Name, p.UnstableReason)
		if r.Machine != nil && r.Machine.StealPct >= 1 {
			line += fmt.Sprintf("; the hypervisor stole %.1f%% of the CPU time during the run", r.Machine.StealPct)
		}
		out = append(out, line)
	}
	return out
}

func residenceVerdicts(g map[Path]PathResult) []string {
	var out []string
	for _, r := range relaysIn(g) {
		for _, c := range []Transport{TCP, UNIX} {
			p, ok := g[Path{Relay: r, Client: c, Upstream: TCP, Hops: 1}]
			if ok && p.Decomposition != nil && p.ExplainedPct != nil {
				d := p.Decomposition
				code := fmt.Sprintf("relay code %s", Us(d.RelayCode))
				if !d.Measured() {
					code = "relay code not measured"
				}
				ends := ""
				if d.Endpoints != nil {
					ends = ", endpoints " + Us(*d.Endpoints)
				}
				if d.MeanExcess != nil {
					ends += ", less the mean's excess over the p50 " + Us(*d.MeanExcess)
				}
				out = append(out, fmt.Sprintf("%s: of its %s µs, %s, wake-ups %s, kernel legs %s%s, residual %s µs: %.0f%% explained",
					p.Name, Us(p.AddedUs.P50), code, Us(d.Wakeups), Us(d.Kernel), ends, Us(d.Residual), *p.ExplainedPct))
				continue
			}
			if !ok || p.RelayUs == nil || p.AddedUs == nil {
				continue
			}
			if p.KernelUs == nil {
				out = append(out, fmt.Sprintf("%s: the relay holds a request %s µs on average, longer than the %s µs the hop adds at the median: requests queue inside it, and the hop does not split into the relay's time and the kernel's",
					p.Name, Us(*p.RelayUs), Us(p.AddedUs.P50)))
				continue
			}
			out = append(out, fmt.Sprintf("%s: the relay holds a request %s µs of the %s µs hop (its code and its read and write calls); wake-ups and the extra loopback legs take the other %s µs",
				p.Name, Us(*p.RelayUs), Us(p.AddedUs.P50), Us(*p.KernelUs)))
		}
	}
	return out
}

// connectVerdicts separates what a hop costs once per connection from what
// it costs per request: the relay must accept, connect
// upstream, and pass the protocol's handshake through.
func connectVerdicts(g map[Path]PathResult) []string {
	direct, ok := g[DirectPath(TCP)]
	if ok && direct.Connect != nil {
		// A series of set-ups: its p50 is a connection's cost, not one
		// cold connection's.
		var parts []string
		for _, r := range relaysIn(g) {
			if p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]; ok && p.Connect != nil {
				parts = append(parts, fmt.Sprintf("%s %+.0f µs (p99 %s)", r, p.Connect.P50Us-direct.Connect.P50Us, Us(p.Connect.P99Us)))
			}
		}
		if len(parts) == 0 {
			return nil
		}
		return []string{fmt.Sprintf("connection set-up, dial to quit (p50 of a connect-only series, direct tcp %s µs over %d connects, p99 %s), once per connection: %s",
			Us(direct.Connect.P50Us), direct.Connect.N, Us(direct.Connect.P99Us), strings.Join(parts, ", "))}
	}
	if !ok || direct.ConnectUs == 0 {
		return nil
	}
	var parts []string
	for _, r := range relaysIn(g) {
		if p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]; ok && p.ConnectUs > 0 {
			parts = append(parts, fmt.Sprintf("%s %+.0f µs", r, p.ConnectUs-direct.ConnectUs))
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return []string{fmt.Sprintf("connection set-up (p50, direct tcp %s µs), once per connection: %s", Us(direct.ConnectUs), strings.Join(parts, ", "))}
}

func chainVerdicts(chains []Chain) []string {
	var out []string
	for _, c := range chains {
		name := fmt.Sprintf("%s %s chain (%s)", c.Relay, c.Transport, setting(c.Threads, c.ServiceTimeUs))
		if c.Regime != "" {
			name = c.Regime + ": " + name
		}
		if spansZero(c.PerHopCI95) {
			out = append(out, noDifference(name+": per hop", c.PerHopCI95))
			continue
		}
		out = append(out, fmt.Sprintf("%s: each hop adds %s µs [95%% CI %s, %s], r² %.3f; client and server fixed cost %s µs",
			name, Us(c.PerHopUs), Us(c.PerHopCI95[0]), Us(c.PerHopCI95[1]), c.R2, Us(c.InterceptUs)))
	}
	return out
}

// threadVerdicts names, for each path swept over thread counts, the count
// where throughput peaked: past it, a lock or a single loop caps scaling.
func threadVerdicts(paths []PathResult) []string {
	type key struct {
		name string
		g    group
	}
	peak := map[key]PathResult{}
	counts := map[key]int{}
	var order []key
	for _, p := range paths {
		g := groupOf(p)
		g.threads = 0
		k := key{p.Name, g}
		if _, ok := peak[k]; !ok {
			order = append(order, k)
		}
		counts[k]++
		if best, ok := peak[k]; !ok || p.TPS > best.TPS {
			peak[k] = p
		}
	}
	var out []string
	for _, k := range order {
		if counts[k] < 2 {
			continue
		}
		p := peak[k]
		where := p.Name
		if p.ServiceTimeUs != 0 {
			where += fmt.Sprintf(" (service time %s µs)", Us(p.ServiceTimeUs))
		}
		out = append(out, fmt.Sprintf("%s: throughput peaks at %d threads (%.0f tps)", where, p.Threads, p.TPS))
	}
	return out
}

// serviceTimeVerdicts shows, for each relay path swept over service times,
// its overhead at the shortest and the longest: the shorter the query, the
// larger the relative overhead.
func serviceTimeVerdicts(paths []PathResult) []string {
	type key struct {
		name    string
		threads int
	}
	lo, hi := map[key]PathResult{}, map[key]PathResult{}
	var order []key
	for _, p := range paths {
		if p.AddedUs == nil || p.Relay == Direct {
			continue
		}
		k := key{p.Name, p.Threads}
		l, ok := lo[k]
		if !ok {
			order = append(order, k)
			lo[k], hi[k] = p, p
			continue
		}
		if p.ServiceTimeUs < l.ServiceTimeUs {
			lo[k] = p
		}
		if p.ServiceTimeUs > hi[k].ServiceTimeUs {
			hi[k] = p
		}
	}
	var out []string
	for _, k := range order {
		l, h := lo[k], hi[k]
		if l.ServiceTimeUs == h.ServiceTimeUs {
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s): adds %s µs, %.0f%% of the direct path's p50, at %s µs service time; %s µs, %.0f%%, at %s µs",
			k.name, plural(k.threads, "thread"), Us(l.AddedUs.P50), l.AddedUs.P50Pct, Us(l.ServiceTimeUs),
			Us(h.AddedUs.P50), h.AddedUs.P50Pct, Us(h.ServiceTimeUs)))
	}
	return out
}

// setting names a thread count and, when there is one, a service time.
func setting(threads int, serviceUs float64) string {
	s := plural(threads, "thread")
	if serviceUs != 0 {
		s += fmt.Sprintf(", service time %s µs", Us(serviceUs))
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Us writes a figure in microseconds as every hopbench table and verdict
// does: whole microseconds from 100 up, else one decimal.
func Us(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

func pct(part, whole float64) string {
	if whole == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*part/whole)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// regimesOf groups paths by regime, the regimes in the order they first
// appear.
func regimesOf(paths []PathResult) (order []string, byRegime map[string][]PathResult) {
	byRegime = map[string][]PathResult{}
	for _, p := range paths {
		if _, ok := byRegime[p.Regime]; !ok {
			order = append(order, p.Regime)
		}
		byRegime[p.Regime] = append(byRegime[p.Regime], p)
	}
	return order, byRegime
}

// UnixLegSummary is the UNIX-leg verdicts of each regime in one line:
// what a UNIX client leg saves on each path where it measurably does,
// and the paths where it does not. The one-screen report prints it;
// Verdicts keeps a sentence per path.
func UnixLegSummary(r *Report) []string {
	order, byRegime := regimesOf(r.Paths)
	var out []string
	for _, regime := range order {
		// A report read back from JSON knows its paths by their fields.
		ps := slices.Clone(byRegime[regime])
		for i := range ps {
			ps[i].path = Path{Relay: ps[i].Relay, Client: ps[i].ClientTransport, Upstream: ps[i].UpstreamTransport, Hops: ps[i].Hops}
		}
		g := firstGroup(ps)
		var saves, costs, none []string
		for _, rl := range Relays {
			tcp := Path{Relay: rl, Client: TCP, Upstream: TCP, Hops: 1}
			unix := Path{Relay: rl, Client: UNIX, Upstream: TCP, Hops: 1}
			if rl == Direct {
				tcp, unix = DirectPath(TCP), DirectPath(UNIX)
			}
			a, okA := g[tcp]
			b, okB := g[unix]
			if !okA || !okB {
				continue
			}
			d, _, ok := pairedP50(a, b)
			switch {
			case !ok:
			case spansZero(d.MedianCI95):
				none = append(none, label(rl))
			case d.Median > 0:
				saves = append(saves, fmt.Sprintf("%s %s µs [%s, %s]", label(rl), Us(d.Median), Us(d.MedianCI95[0]), Us(d.MedianCI95[1])))
			default:
				costs = append(costs, fmt.Sprintf("%s %s µs [%s, %s]", label(rl), Us(-d.Median), Us(-d.MedianCI95[1]), Us(-d.MedianCI95[0])))
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
		if len(order) > 1 {
			line = regime + ": " + line
		}
		out = append(out, line)
	}
	return out
}
