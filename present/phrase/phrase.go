// Package phrase writes the figures and the sentences every hopbench
// table, verdict and page shows, from the typed values and findings the
// packages below hand over: one format per kind of figure and one wording
// per kind of finding, so that package present and its page renderer say
// each the same way. Only present and cmd compose words for a person.
package phrase

import (
	"fmt"
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
