// Package numfmt writes the figures every hopbench table, verdict and
// page shows, one format per kind of figure, so that package present and
// its page renderer say a figure the same way. Packages below present hand
// over typed values; only present and cmd format them.
package numfmt

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
