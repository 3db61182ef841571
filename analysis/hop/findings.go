package hop

import (
	"fmt"
	"math"
	"slices"

	"github.com/hoplat/hoplat/series"
	"github.com/hoplat/hoplat/stats"
)

// A Finding is one thing the report found, as data: which kind (its
// type), the path or paths it is about, and the figures that support it.
// Package present says each one in a sentence (the report's verdicts);
// this package decides what is found and what is not measurable, and
// writes no words. The kinds are the types below that implement it.
type Finding interface{ finding() }

// UnixLeg is what a UNIX client leg (for the direct path: a UNIX socket
// instead of TCP) saves over the TCP one on one relay's path at one hop:
// the paired difference TCP−UNIX of the rounds both kept.
type UnixLeg struct {
	Regime string // the regime of the paths compared
	Relay  Relay
	// Measurable is false when the difference's interval spans zero.
	Measurable bool
	MedianUs   float64    // > 0: the UNIX leg saves this; < 0: it costs it
	CI95Us     [2]float64 // the median's 95% interval
	BaseUs     float64    // the TCP path's p50 over the same rounds
}

// HopCosts is each relay's added p50 with a TCP client leg: the relays
// with a measurable one, cheapest first, and those whose interval spans
// zero.
type HopCosts struct {
	Regime       string
	Hops         []HopCost
	Unmeasurable []Relay
}

// HopCost is one relay's added p50 (µs, and % of the direct TCP path's).
type HopCost struct {
	Relay  Relay
	P50Us  float64
	P50Pct float64
	Stable bool
}

// Residence is what a relay path's added p50 is made of: the
// decomposition when the path was explained, else how long the relay
// held a request against the hop (KernelUs nil: longer than the hop, so
// requests queue inside it).
type Residence struct {
	Regime        string
	Path          string
	AddedUs       float64
	Decomposition *Decomposition // with ExplainedPct; nil when not explained
	ExplainedPct  float64
	RelayUs       float64
	KernelUs      *float64
}

// ConnectSetup is what a hop costs once per connection against the direct
// TCP path: from a connect-only series (Series set) or, without one, from
// each round's one cold connection (DirectUs).
type ConnectSetup struct {
	Regime   string
	Series   *Connect // the direct path's connect-only series; nil without one
	DirectUs float64  // the direct path's p50 set-up, when Series is nil
	Relays   []ConnectDelta
}

// ConnectDelta is one relay path's connection set-up over the direct
// path's (µs), and, from a connect-only series, its own p99.
type ConnectDelta struct {
	Relay   Relay
	DeltaUs float64
	P99Us   float64
}

// IdleExitHops names the relays whose traced hop (TCP client leg) is a fifth
// or more idle exits, and whether most of them fall on the relay's CPU
// (which a relay that polls removes) or on the client's and server's.
type IdleExitHops struct {
	Regime      string
	Hops        []IdleExitHop
	MostOnRelay bool
}

// IdleExitHop is one relay's idle exits (µs, all and on the relay's CPU)
// within its added p50.
type IdleExitHop struct {
	Relay      Relay
	IdleUs     float64
	RelayCPUUs float64
	AddedUs    float64
}

// Unstable is a path whose rounds disagree, why, and the hypervisor's
// steal during the run when it was 1% or more (0 otherwise). Reason is
// the path's unstable_reason as the report says it, which package present
// fills from Instability before it asks for the findings.
type Unstable struct {
	Path     string
	Reason   string
	StealPct float64
}

// ChainFit is a relay chain's per-hop cost, from a line fit of its p50
// against its hop count.
type ChainFit struct {
	Chain      Chain
	Measurable bool // false when the per-hop interval spans zero
}

// ThreadPeak is the thread count at which a path swept over thread counts
// peaked in throughput.
type ThreadPeak struct {
	Path          string
	ServiceTimeUs float64
	Threads       int
	TPS           float64
}

// ServiceTimeOverhead is a relay path's added p50 at the shortest and the
// longest service time it was swept over.
type ServiceTimeOverhead struct {
	Path      string
	Threads   int
	Low, High Added
	LowUs     float64 // the service times (µs)
	HighUs    float64
}

// PathErrors is a path whose rounds saw errors: Errors counts a failed
// round once, as the table's errors column does, Failed of them.
type PathErrors struct {
	Path    string
	Threads int
	Errors  int64
	Failed  int
}

func (UnixLeg) finding()             {}
func (HopCosts) finding()            {}
func (Residence) finding()           {}
func (ConnectSetup) finding()        {}
func (IdleExitHops) finding()        {}
func (Unstable) finding()            {}
func (ChainFit) finding()            {}
func (ThreadPeak) finding()          {}
func (ServiceTimeOverhead) finding() {}
func (PathErrors) finding()          {}

// A regimed finding compares the paths of one regime, and says which.
type regimed interface {
	Finding
	inRegime(regime string) Finding
}

func (f UnixLeg) inRegime(regime string) Finding      { f.Regime = regime; return f }
func (f HopCosts) inRegime(regime string) Finding     { f.Regime = regime; return f }
func (f Residence) inRegime(regime string) Finding    { f.Regime = regime; return f }
func (f ConnectSetup) inRegime(regime string) Finding { f.Regime = regime; return f }
func (f IdleExitHops) inRegime(regime string) Finding { f.Regime = regime; return f }

// all is a regime's findings of one kind, as regimed findings.
func all[F regimed](fs []F) []regimed {
	out := make([]regimed, len(fs))
	for i, f := range fs {
		out[i] = f
	}
	return out
}

// maybe is a regime's one finding of a kind, when it was found.
func maybe[F regimed](f F, ok bool) []regimed {
	if !ok {
		return nil
	}
	return []regimed{f}
}

// Findings is what a reader wants to know from the report: what a UNIX
// client leg saves, what each hop costs, how much of a hop is the relay's
// own code, what a connection costs, idle exits, unstable paths, the
// per-hop slope of each chain, where throughput stops scaling, how
// overhead falls as the query's own cost grows, and errors. Comparisons
// are made at the first stage and smallest thread count, where the paths
// have the most in common.
func Findings(r *Report) []Finding {
	var out []Finding
	// Each regime is its own experiment: its paths are compared with
	// each other, never with another regime's.
	order, byRegime := regimesOf(r.Paths)
	for _, regime := range order {
		first := firstGroup(byRegime[regime])
		for _, f := range slices.Concat(all(unixLegs(first)), maybe(hopCosts(first)), all(residences(first)),
			maybe(connectSetup(first)), maybe(idleExits(first))) {
			out = append(out, f.inRegime(regime))
		}
	}
	out = append(out, unstables(r)...)
	for _, c := range r.Chains {
		out = append(out, ChainFit{Chain: c, Measurable: !spansZero(c.PerHopCI95)})
	}
	out = append(out, threadPeaks(r.Paths)...)
	out = append(out, serviceTimeOverheads(r.Paths)...)
	for _, p := range r.Paths {
		if p.Errors > 0 || p.Failed > 0 {
			out = append(out, PathErrors{Path: p.Name, Threads: p.Threads, Errors: p.Errors + int64(p.Failed), Failed: p.Failed})
		}
	}
	return out
}

// UnixLegsByRegime is the UNIX-leg findings of each regime, for a report
// read back from JSON too (its paths are known by their fields): the
// one-screen report says them in one line per regime.
func UnixLegsByRegime(r *Report) [][]UnixLeg {
	order, byRegime := regimesOf(r.Paths)
	var out [][]UnixLeg
	for _, regime := range order {
		ps := slices.Clone(byRegime[regime])
		for i := range ps {
			ps[i].path = Path{Relay: ps[i].Relay, Client: ps[i].ClientTransport, Upstream: ps[i].UpstreamTransport, Hops: ps[i].Hops}
		}
		legs := unixLegs(firstGroup(ps))
		for i := range legs {
			legs[i].Regime = regime
		}
		out = append(out, legs)
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

// unixLegs pairs each of hopbench's relays' TCP-client path with its
// UNIX-client one in g (direct: the TCP path with the UNIX one).
func unixLegs(g map[Path]PathResult) []UnixLeg {
	var out []UnixLeg
	for _, r := range Relays {
		tcp := Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}
		unix := Path{Relay: r, Client: UNIX, Upstream: TCP, Hops: 1}
		if r == Direct {
			tcp, unix = DirectPath(TCP), DirectPath(UNIX)
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
		out = append(out, UnixLeg{Relay: r, Measurable: !spansZero(d.MedianCI95), MedianUs: d.Median, CI95Us: d.MedianCI95, BaseUs: base})
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

// hopCosts lists each relay's added p50 with a TCP client leg, cheapest
// first; a relay whose interval spans zero adds nothing measurable.
func hopCosts(g map[Path]PathResult) (HopCosts, bool) {
	var f HopCosts
	for _, r := range relaysIn(g) {
		p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]
		switch {
		case !ok || p.AddedUs == nil:
		case spansZero(p.AddedUs.CI95P50):
			f.Unmeasurable = append(f.Unmeasurable, r)
		default:
			f.Hops = append(f.Hops, HopCost{Relay: p.Relay, P50Us: p.AddedUs.P50, P50Pct: p.AddedUs.P50Pct, Stable: p.Stable})
		}
	}
	slices.SortStableFunc(f.Hops, func(a, b HopCost) int { return cmpFloat(a.P50Us, b.P50Us) })
	return f, len(f.Hops) > 0 || len(f.Unmeasurable) > 0
}

// idleExitMinShare is the share of a hop's added p50 its idle exits must
// reach for the verdict to name them.
const idleExitMinShare = 0.2

// idleExits finds the relays whose traced hop (TCP client leg) is a fifth
// or more idle exits, and on whose CPU most of them fall: the relay's,
// where polling on a CPU of its own removes them, or the client's and
// server's while they wait, where the placement or the cpuidle governor
// does.
func idleExits(g map[Path]PathResult) (IdleExitHops, bool) {
	var f IdleExitHops
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
		f.Hops = append(f.Hops, IdleExitHop{Relay: r, IdleUs: x.Relay + x.Endpoints, RelayCPUUs: x.Relay, AddedUs: p.AddedUs.P50})
		relay += x.Relay
		ends += x.Endpoints
	}
	f.MostOnRelay = relay >= ends
	return f, len(f.Hops) > 0
}

// unstables names every path whose rounds disagree, how, and the steal
// during the run, a cause of its own.
func unstables(r *Report) []Finding {
	var out []Finding
	for _, p := range r.Paths {
		if p.Stable || p.UnstableReason == "" && p.Instability == nil {
			continue
		}
		f := Unstable{Path: p.Name, Reason: p.UnstableReason}
		if r.Machine != nil && r.Machine.StealPct >= 1 {
			f.StealPct = r.Machine.StealPct
		}
		out = append(out, f)
	}
	return out
}

// residences splits each one-hop relay path's added p50, with either
// client leg.
func residences(g map[Path]PathResult) []Residence {
	var out []Residence
	for _, r := range relaysIn(g) {
		for _, c := range []Transport{TCP, UNIX} {
			p, ok := g[Path{Relay: r, Client: c, Upstream: TCP, Hops: 1}]
			if ok && p.Decomposition != nil && p.ExplainedPct != nil {
				out = append(out, Residence{Path: p.Name, AddedUs: p.AddedUs.P50, Decomposition: p.Decomposition, ExplainedPct: *p.ExplainedPct})
				continue
			}
			if !ok || p.RelayUs == nil || p.AddedUs == nil {
				continue
			}
			out = append(out, Residence{Path: p.Name, AddedUs: p.AddedUs.P50, RelayUs: *p.RelayUs, KernelUs: p.KernelUs})
		}
	}
	return out
}

// connectSetup separates what a hop costs once per connection from what
// it costs per request: the relay must accept, connect upstream, and pass
// the protocol's handshake through.
func connectSetup(g map[Path]PathResult) (ConnectSetup, bool) {
	direct, ok := g[DirectPath(TCP)]
	if ok && direct.Connect != nil {
		// A series of set-ups: its p50 is a connection's cost, not one
		// cold connection's.
		f := ConnectSetup{Series: direct.Connect}
		for _, r := range relaysIn(g) {
			if p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]; ok && p.Connect != nil {
				f.Relays = append(f.Relays, ConnectDelta{Relay: r, DeltaUs: p.Connect.P50Us - direct.Connect.P50Us, P99Us: p.Connect.P99Us})
			}
		}
		return f, len(f.Relays) > 0
	}
	if !ok || direct.ConnectUs == 0 {
		return ConnectSetup{}, false
	}
	f := ConnectSetup{DirectUs: direct.ConnectUs}
	for _, r := range relaysIn(g) {
		if p, ok := g[Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}]; ok && p.ConnectUs > 0 {
			f.Relays = append(f.Relays, ConnectDelta{Relay: r, DeltaUs: p.ConnectUs - direct.ConnectUs})
		}
	}
	return f, len(f.Relays) > 0
}

// threadPeaks finds, for each path swept over thread counts, the count
// where throughput peaked: past it, a lock or a single loop caps scaling.
func threadPeaks(paths []PathResult) []Finding {
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
	var out []Finding
	for _, k := range order {
		if counts[k] < 2 {
			continue
		}
		p := peak[k]
		out = append(out, ThreadPeak{Path: p.Name, ServiceTimeUs: p.ServiceTimeUs, Threads: p.Threads, TPS: p.TPS})
	}
	return out
}

// serviceTimeOverheads finds, for each relay path swept over service
// times, its overhead at the shortest and the longest: the shorter the
// query, the larger the relative overhead.
func serviceTimeOverheads(paths []PathResult) []Finding {
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
	var out []Finding
	for _, k := range order {
		l, h := lo[k], hi[k]
		if l.ServiceTimeUs == h.ServiceTimeUs {
			continue
		}
		out = append(out, ServiceTimeOverhead{Path: k.name, Threads: k.threads, Low: *l.AddedUs, High: *h.AddedUs,
			LowUs: l.ServiceTimeUs, HighUs: h.ServiceTimeUs})
	}
	return out
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Us writes a figure in microseconds, whole from 100 up, else with one
// decimal, as the names that carry one do: a stage's name (its service
// time) and a comparison row's sweep point, which the report's JSON keys
// and matches by. Every figure a person reads elsewhere is said by package
// present (phrase.Us, the same format).
func Us(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
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
