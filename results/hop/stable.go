package hop

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hoplat/hoplat/results"
)

// Rounds of one path disagree when the machine changed under them: the
// scheduler placed a component on another CPU, the hypervisor stole the
// vCPU, another tenant took the core. A mean over such rounds describes
// no round, so a path whose rounds disagree is flagged instead of
// summarised as if they agreed.
const (
	// maxRoundRatio is how far apart the slowest and fastest round p50
	// may be: twice is far more than the noise of a quiet machine, and
	// less than one cross-CPU wake-up more per request costs on a guest.
	maxRoundRatio = 2.0
	// maxRoundSpread bounds the slowest kept round p50 against the
	// fastest even when they form no two groups: a hop's figure is meant
	// to repeat within ±15% from one run to the next, which rounds spread
	// wider than this cannot promise. Measured on a quiet 2-vCPU guest,
	// every component pinned to CPU 0: epoll tcp->tcp's round p50s 32.5,
	// 35.9, 24.1, 25.0, 33.8, 24.5 µs in one run (its added p50 14.3 µs)
	// and 25.6, 24.1, 34.0, 23.5, 24.2, 23.6 in the next (10.4 µs).
	maxRoundSpread = 1.3
	// steadyTPS is how closely rounds' throughput agrees when only the
	// p50 moves: the mean round trip held, the median jumped between the
	// modes of a two-humped distribution.
	steadyTPS = 1.1
)

// stability says whether kept round p50s agree, and if not, how they
// disagree.
func stability(p50s []float64) (bool, string) {
	if len(p50s) < 2 {
		return true, ""
	}
	s := slices.Sorted(slices.Values(p50s))
	lo, hi := s[0], s[len(s)-1]
	if lo > 0 && hi/lo > maxRoundRatio {
		return false, fmt.Sprintf("round p50s %s µs: max/min %.1f > %g", list(p50s), hi/lo, maxRoundRatio)
	}
	if len(s) < 3 || lo <= 0 {
		return true, ""
	}
	if hi/lo > maxRoundSpread && !twoGroups(s) {
		return false, fmt.Sprintf("round p50s %s µs: max/min %.2f > %g", list(p50s), hi/lo, maxRoundSpread)
	}
	below, above, ok := results.TwoModes(s)
	if ok {
		return false, fmt.Sprintf("round p50s %s µs: two clusters, %s and %s µs", list(p50s), list(below), list(above))
	}
	return true, ""
}

// twoGroups says whether sorted round p50s fall in two groups (see
// results.TwoModes), which stability reports as such.
func twoGroups(s []float64) bool {
	_, _, ok := results.TwoModes(s)
	return ok
}

// p50Only says whether rounds whose p50s disagree agreed on throughput,
// the mean round trip, within steadyTPS: then the per-request times are
// two-humped and each round's median fell on one hump or the other,
// while the machine under them did not change.
func p50Only(tps []float64) (float64, bool) {
	if len(tps) < 2 {
		return 0, false
	}
	lo, hi := slices.Min(tps), slices.Max(tps)
	if lo <= 0 {
		return 0, false
	}
	return hi / lo, hi/lo <= steadyTPS
}

// likelyCause names what most plausibly moved a path's rounds, from what
// the run knows of its placement and of the rounds' throughput (tps).
func likelyCause(regime string, placement map[string]string, tps []float64) string {
	if regime == "none" {
		return "placement: unpinned, the scheduler may place the components on one CPU in one round and on two in the next"
	}
	for _, c := range []string{"client", "relay", "server"} {
		if v := placement[c]; strings.Contains(v, "|") {
			return fmt.Sprintf("placement changed between rounds (%s on CPUs %s)", c, v)
		}
	}
	if ratio, ok := p50Only(tps); ok {
		return fmt.Sprintf("two-humped round trips: each round's p50 fell on one hump or the other while throughput agreed within %.0f%% (the mean held: compare tps)", 100*(ratio-1))
	}
	return "CPU migration or another tenant's load on the pinned CPUs"
}

func list(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = Us(v)
	}
	return strings.Join(parts, ", ")
}
