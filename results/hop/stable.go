package hop

import (
	"fmt"
	"slices"
	"strings"
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
	// clusterGap and clusterRatio say when rounds fall in two groups: the
	// widest gap between neighbouring values exceeds clusterGap times the
	// spread inside either group, and the groups are clusterRatio apart.
	clusterGap   = 3.0
	clusterRatio = 1.25
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
	gi, gap := 0, 0.0
	for i := 0; i+1 < len(s); i++ {
		if d := s[i+1] - s[i]; d > gap {
			gi, gap = i, d
		}
	}
	below, above := s[:gi+1], s[gi+1:]
	inside := max(below[len(below)-1]-below[0], above[len(above)-1]-above[0], 0.02*s[len(s)/2])
	if gap > clusterGap*inside && above[0]/below[len(below)-1] > clusterRatio {
		return false, fmt.Sprintf("round p50s %s µs: two clusters, %s and %s µs", list(p50s), list(below), list(above))
	}
	return true, ""
}

// likelyCause names what most plausibly moved a path's rounds, from what
// the run knows of its placement.
func likelyCause(regime string, placement map[string]string) string {
	if regime == "none" {
		return "placement: unpinned, the scheduler may place the components on one CPU in one round and on two in the next"
	}
	for _, c := range []string{"client", "relay", "server"} {
		if v := placement[c]; strings.Contains(v, "|") {
			return fmt.Sprintf("placement changed between rounds (%s on CPUs %s)", c, v)
		}
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
