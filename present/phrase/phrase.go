// Package phrase writes the figures and the sentences every hopbench
// table, verdict and page shows, from the typed values and findings the
// packages below hand over: one format per kind of figure and one wording
// per kind of finding, so that package present and its page renderer say
// each the same way. Only present and cmd compose words for a person.
package phrase

import (
	"fmt"
	"github.com/hoplat/hoplat/analysis/hop"
	"math"
)

// Us writes a figure in microseconds: whole microseconds from 100 up,
// else one decimal.
func Us(v float64) string {
	if math.Abs(v) >= 100 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}

// Sizing is a stage's round sizing as the reports say it.
func Sizing(s hop.RoundSizing) string {
	if s.Error != "" {
		return fmt.Sprintf("rounds %s: %.2f s each (calibration failed: %s)", s.Stage, s.TimeS, s.Error)
	}
	why := fmt.Sprintf("a request took %s µs on %s, so a round holds about %d (want >= %d)",
		Us(s.RequestUs), s.Path, s.Expected, s.Target)
	if s.Capped {
		why += fmt.Sprintf("; the %.0f s budget caps it", s.BudgetS)
	}
	return fmt.Sprintf("rounds %s: %.2f s each: %s", s.Stage, s.TimeS, why)
}

// Wakes is the wake-up check in one sentence: the traced wake-ups by
// kind, then what the probe priced them at.
func Wakes(c *hop.WakeCheck) string {
	part := func(s hop.Spread, what string) string {
		if s.N == 0 {
			return "none " + what
		}
		return fmt.Sprintf("%s µs %s (p25 %s, p75 %s; %d)", Us(s.P50), what, Us(s.P25), Us(s.P75), s.N)
	}
	line := "wake-ups the traced requests waited for, waking to on CPU, median: " +
		part(c.CrossIdle, "onto another, idle CPU") + ", " + part(c.SameCPU, "onto the waker's own")
	if c.ProbeCrossUS > 0 {
		line += fmt.Sprintf("; the probe's pipe wake-up one way: %s µs cross-CPU, %s same CPU, %s µs more across",
			Us(c.ProbeCrossUS), Us(c.ProbeSameUS), Us(c.ProbeExtraUS))
	}
	return line
}
