package present

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present/phrase"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/roles"
)

// workloadLine says what ran, in one line: the client and its load, the
// server, the connections and the rounds.
func workloadLine(r *hop.Report) string {
	c := r.Config
	load := "echo"
	if c.Proto == "mysql" {
		load = cmp.Or(c.Command, "queries")
	}
	if len(c.Sizes) > 0 {
		if c.Proto == "mysql" {
			load += ", " + joinInts(c.Sizes, "/") + "-byte rows"
		} else {
			load = joinInts(c.Sizes, "/") + "-byte " + load
		}
	}
	server := "pongd's MySQL mock"
	switch {
	case c.Backend != "" && c.Backend != "embedded":
		server = c.Backend
	case c.Proto != "mysql":
		server = "pongd echo"
	}
	conns := "1 connection"
	if len(c.Threads) > 1 || (len(c.Threads) == 1 && c.Threads[0] != 1) {
		conns = joinInts(c.Threads, "/") + " connections"
	}
	rounds := fmt.Sprintf("%d rounds", c.Rounds)
	switch {
	case c.Discard == 1:
		rounds += " (first discarded)"
	case c.Discard > 1:
		rounds += fmt.Sprintf(" (first %d discarded)", c.Discard)
	}
	return fmt.Sprintf("workload: pingpong %s to %s, %s; %s", load, server, conns, rounds)
}

func joinInts(vs []int, sep string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, sep)
}

// peerName is how a sentence names a relay.
func peerName(r hop.Relay) string {
	switch r {
	case hop.HAProxy:
		return "HAProxy"
	case hop.Direct:
		return "direct"
	}
	if r.IsEngine() {
		return "hoprelay " + string(r)
	}
	return string(r)
}

// answerPaths is a regime's one-hop paths with an added p50 that the
// answer names: a TCP client leg where the relay has one.
func answerPaths(paths []hop.PathResult) []hop.PathResult {
	var out []hop.PathResult
	for _, p := range paths {
		if p.Relay == hop.Direct || p.Hops != 1 || p.AddedUs == nil || !p.Measured() {
			continue
		}
		if i := slices.IndexFunc(out, func(q hop.PathResult) bool { return q.Relay == p.Relay }); i >= 0 {
			if out[i].ClientTransport != hop.TCP && p.ClientTransport == hop.TCP {
				out[i] = p
			}
			continue
		}
		out = append(out, p)
	}
	return out
}

// answer is a regime's sentence: what the first measured peer (a proxy
// of the user's, HAProxy, socat; else the cheapest hoprelay engine)
// adds per round trip and where it goes, then the cheapest hoprelay
// engine and the other peers. "" where no path has an added p50.
func answer(regime string, paths []hop.PathResult) string {
	ps := answerPaths(paths)
	if len(ps) == 0 {
		return ""
	}
	var peers, engines []hop.PathResult
	for _, p := range ps {
		if p.Relay.IsEngine() {
			engines = append(engines, p)
		} else {
			peers = append(peers, p)
		}
	}
	// The user's own proxies first, then HAProxy, then socat.
	slices.SortStableFunc(peers, func(a, b hop.PathResult) int { return peerRank(a.Relay) - peerRank(b.Relay) })
	slices.SortStableFunc(engines, func(a, b hop.PathResult) int { return cmp.Compare(a.AddedUs.P50, b.AddedUs.P50) })
	var subject hop.PathResult
	var rest []hop.PathResult
	if len(peers) > 0 {
		subject, rest = peers[0], peers[1:]
		if len(engines) > 0 {
			rest = append([]hop.PathResult{engines[0]}, rest...)
		}
	} else {
		subject = engines[0]
	}
	var b strings.Builder
	if regime != "" {
		b.WriteString(regime + ": ")
	}
	first := peerName(subject.Relay) + " " + adds(subject, true)
	if !strings.HasSuffix(first, ".") { // an unresolved hop's words end in its interval
		first += "."
	}
	b.WriteString(first)
	for i, p := range rest {
		switch {
		case i == 0:
			b.WriteString(" " + peerName(p.Relay) + " " + adds(p, false))
		case resolved(p):
			b.WriteString(", " + peerName(p.Relay) + " " + phrase.Us(p.AddedUs.P50) + flagMark(p))
		default:
			b.WriteString(", " + peerName(p.Relay) + " " + adds(p, false))
		}
		if i == len(rest)-1 {
			b.WriteString(".")
		}
	}
	return b.String()
}

// peerRank orders the peers an answer names first.
func peerRank(r hop.Relay) int {
	switch r {
	case hop.HAProxy:
		return 1
	case hop.Socat:
		return 2
	}
	return 0 // a proxy of the user's
}

// adds is what p adds: with its share over direct and its split where
// full, in µs; a hop whose interval holds zero is said to be unresolved.
func adds(p hop.PathResult, full bool) string {
	a := p.AddedUs
	mark := flagMark(p)
	if !resolved(p) {
		return fmt.Sprintf("adds no time this run resolves (%s µs, interval [%s, %s])%s",
			phrase.Us(a.P50), phrase.Us(a.CI95P50[0]), phrase.Us(a.CI95P50[1]), mark)
	}
	if !full {
		return fmt.Sprintf("adds %s µs%s", phrase.Us(a.P50), mark)
	}
	s := fmt.Sprintf("adds %s µs per round trip%s", phrase.Us(a.P50), mark)
	if a.P50Pct > 0 {
		s += fmt.Sprintf(" (%+.0f%% over direct %s µs)", a.P50Pct, phrase.Us(100*a.P50/a.P50Pct))
	}
	if parts := largestParts(p); parts != "" {
		s += ": " + parts
	}
	return s + "."
}

// flagMark marks a flagged path where a sentence names it.
func flagMark(p hop.PathResult) string {
	if !p.Stable {
		return " (!)"
	}
	return ""
}

// resolved says whether p's added p50 interval excludes zero: a hop this
// run could tell from no hop.
func resolved(p hop.PathResult) bool {
	a := p.AddedUs
	return a != nil && (a.Pairs < 2 || a.CI95P50[0] > 0 || a.CI95P50[1] < 0)
}

// largestParts is the three largest positive parts of p's split, largest
// first, as a sentence names them.
func largestParts(p hop.PathResult) string {
	parts := splitParts(p)
	if parts == nil {
		return ""
	}
	named := []struct {
		name string
		v    float64
	}{{"its own code", parts.code}, {"wake-ups", parts.wake}, {"kernel legs", parts.kernel}, {"endpoints", parts.ends}}
	slices.SortStableFunc(named, func(a, b struct {
		name string
		v    float64
	}) int {
		return cmp.Compare(b.v, a.v)
	})
	var out []string
	for _, n := range named[:3] {
		if n.v >= 0.05 {
			out = append(out, n.name+" "+phrase.Us(n.v))
		}
	}
	return strings.Join(out, ", ")
}

// split is a path's added p50 in the report's columns: each part as
// measured, and other what they leave of the added p50 (the residual
// without the tail's mean excess), so that the five add up to it.
type split struct {
	code, wake, kernel, ends, other float64
	codeMeasured, endsMeasured      bool
}

// splitParts is p's split, nil where the hop was not split.
func splitParts(p hop.PathResult) *split {
	d := p.Decomposition
	if d == nil || p.AddedUs == nil {
		return nil
	}
	s := &split{wake: d.Wakeups, kernel: d.Kernel, codeMeasured: d.Measured()}
	if s.codeMeasured {
		s.code = d.RelayCode
	}
	if d.Endpoints != nil {
		s.ends, s.endsMeasured = *d.Endpoints, true
	}
	s.other = p.AddedUs.P50 - s.code - s.wake - s.kernel - s.ends
	return s
}

// hostNoise is r's host noise per stage: as the run judged it, or
// from its paths for a report that predates the field.
func hostNoise(r *hop.Report) []hop.HostNoise {
	if r.HostNoise != nil {
		return r.HostNoise
	}
	return hop.HostNoiseOf(r.Paths)
}

// noiseLines say the host's own noise once: how far the direct paths'
// rounds spread in each stage and so how far a relay path's may before
// it is flagged, the host's change of speed within the run, and against
// the same command's earlier runs.
func noiseLines(r *hop.Report) []string {
	var out []string
	if noise := hostNoise(r); len(noise) > 0 {
		var spread, limit, slow []string
		for _, n := range noise {
			stage := ""
			if len(noise) > 1 {
				stage = " " + n.Stage
			}
			spread = append(spread, fmt.Sprintf("%.0f%%%s", n.SpreadPct, stage))
			limit = append(limit, fmt.Sprintf("%.0f%%%s", n.LimitPct, stage))
			if len(n.SlowRounds) > 0 {
				slow = append(slow, "rounds "+ints(n.SlowRounds)+stage)
			}
		}
		out = append(out, fmt.Sprintf("host noise: the direct paths' rounds spread %s (max/min of the middle round p50s); "+
			"a relay path is flagged (!) only past %s", strings.Join(spread, ", "), strings.Join(limit, ", ")))
		if len(slow) > 0 {
			out = append(out, "the host slowed "+strings.Join(slow, "; ")+" on a third or more of the relay "+
				"paths, not the direct ones: those rounds are left out of each path's spread")
		}
	}
	var states []machine.State
	if r.Machine != nil {
		states = r.Machine.States
	}
	var moved []string
	for i := 0; i+1 < len(states); i += 2 {
		fast, slow := states[i], states[i+1]
		if fast.Stage == slow.Stage {
			moved = append(moved, fmt.Sprintf("%s %s µs, %s µs in rounds %s", fast.Control,
				phrase.Us(fast.ControlP50Us), phrase.Us(slow.ControlP50Us), ints(slow.Rounds)))
		}
	}
	if len(moved) > 0 {
		out = append(out, "the host changed speed between rounds ("+strings.Join(moved, "; ")+
			"): each hop is paired with the direct round at its speed")
	}
	if h := r.History; h != nil && h.PastRuns > 0 {
		out = append(out, briefAcross(*h))
	}
	return out
}

// briefAcross says in a line what the run was judged against across
// invocations.
func briefAcross(h hop.History) string {
	if h.Judged == 0 {
		return fmt.Sprintf("across runs: %s of this command on this machine; each hop is judged against "+
			"them from two on", plural(h.PastRuns, "earlier run"))
	}
	line := fmt.Sprintf("across runs: against the last %s, %d of %d hops moved more than 15%% from their median",
		plural(h.PastRuns, "run"), h.Flagged, h.Judged)
	if len(h.HostMoved) == 0 {
		return line
	}
	return line + "; the host ran at another speed than in them (" + hostMoved(h) +
		"), and a hop there is judged at that speed"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// flagReason is why p is flagged, in a line: how far it moved from its
// earlier runs, or how far its rounds spread against the direct paths'.
func flagReason(p hop.PathResult, noise []hop.HostNoise) string {
	if a := p.AcrossRuns; a != nil && a.Flagged {
		s := fmt.Sprintf("added p50 %s µs, %+.0f%% from %s µs, its median over this run and the last %d",
			phrase.Us(p.AddedUs.P50), a.OffPct, phrase.Us(a.MedianUs), len(a.PastUs))
		if a.ScaledOffPct != nil {
			s += fmt.Sprintf(" (%+.0f%% at the host's speed then)", *a.ScaledOffPct)
		}
		return s
	}
	spread := p.RoundSpreadPct
	if spread == 0 {
		spread = hop.TrimmedSpreadPct(p.RoundsP50Us) // a report that predates the field
	}
	s := fmt.Sprintf("middle rounds %.0f%% apart", spread)
	if len(p.RoundsP50Us) > 0 {
		s += fmt.Sprintf(" (round p50s %s-%s µs)", phrase.Us(slices.Min(p.RoundsP50Us)), phrase.Us(slices.Max(p.RoundsP50Us)))
	}
	for _, n := range noise {
		if n.Stage == p.Regime || len(noise) == 1 {
			s += fmt.Sprintf("; direct paths' %.0f%%", n.SpreadPct)
		}
	}
	return s
}

// firstStage is the paths of the first stage among paths (its first
// service time, size and rows, its fewest threads): where a swept run's
// answer is read, as the verdicts are.
func firstStage(paths []hop.PathResult) []hop.PathResult {
	if len(paths) == 0 {
		return nil
	}
	first := paths[0]
	for _, p := range paths {
		if p.Threads < first.Threads {
			first = p
		}
	}
	var out []hop.PathResult
	for _, p := range paths {
		if p.Threads == first.Threads && p.ServiceTimeUs == paths[0].ServiceTimeUs && p.Size == paths[0].Size && p.Rows == paths[0].Rows {
			out = append(out, p)
		}
	}
	return out
}

// placementLine says in a line where each regime put the client, the
// relay and the server, as the processes were read back.
func placementLine(groups []regimeGroup) string {
	var parts []string
	for _, g := range groups {
		where := ""
		for _, p := range g.paths {
			if p.Relay != hop.Direct && p.Placement != nil {
				where = cpusOf(p)
				break
			}
		}
		if g.name == "none" {
			where = "unpinned, the scheduler chose"
		}
		if where == "" {
			continue
		}
		if g.name != "" {
			where = g.name + ", " + where
		}
		parts = append(parts, where)
	}
	if len(parts) == 0 {
		return ""
	}
	return "placement: " + strings.Join(parts, "; ")
}

// cpusOf is where p's client, relay and server ran.
func cpusOf(p hop.PathResult) string {
	c, r, s := p.Placement[roles.Client], p.Placement[roles.Relay], p.Placement[roles.Server]
	if c != "" && c == r && r == s {
		return "all on CPU " + c
	}
	return fmt.Sprintf("client on CPU %s, relay on %s, server on %s", orDash(c), orDash(r), orDash(s))
}

// resolutionLine says how a run against a real backend lengthened its
// rounds to resolve every hop, and where it ran out of time, the smallest
// hop it could resolve and what would resolve the rest; "" for a run
// that did not.
func resolutionLine(r *hop.Report) string {
	res := r.Resolution
	if res == nil {
		return ""
	}
	ran := fmt.Sprintf("%s of rounds of %.2f s, %.0f s of the %.0f s bound", plural(res.Attempts, "run"),
		res.TimeS, res.SpentS, res.BoundS)
	if res.Unresolved == 0 {
		return "resolved: every relay path's interval excludes zero after " + ran
	}
	line := fmt.Sprintf("unresolved: %d relay paths' intervals hold zero after %s; the smallest hop this run "+
		"could resolve is %s µs", res.Unresolved, ran, phrase.Us(res.SmallestUs))
	if res.SuggestTimeS > 0 {
		line += fmt.Sprintf("; --time %.0fs or --runs %d would resolve them as measured", res.SuggestTimeS, res.SuggestRuns)
	}
	return line
}
