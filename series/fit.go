package series

import (
	"fmt"
	"math"

	mstats "github.com/montanaflynn/stats"
)

// Fit is a least-squares line y = Slope·x + Intercept. For a chain sweep x is
// the hop count and y the p50 round trip, so Slope is the cost of one more hop
// and Intercept what client and server cost without any.
type Fit struct {
	N         int        `json:"n"`
	Slope     float64    `json:"slope"`
	Intercept float64    `json:"intercept"`
	R2        float64    `json:"r2"`
	SlopeCI95 [2]float64 `json:"slope_ci95"` // slope ± t(0.975, n-2)·SE(slope)
}

// FitLine fits a line to the points (x[i], y[i]). It needs at least two
// distinct x. With exactly two points the line is exact and the slope's
// interval collapses to the slope. When every y is equal R2 is 1 (the flat
// line explains them all) rather than 0/0.
func FitLine(x, y []float64) (Fit, error) {
	if len(x) != len(y) {
		return Fit{}, fmt.Errorf("series: fit line: %d x values and %d y values", len(x), len(y))
	}
	n := len(x)
	if n < 2 {
		return Fit{}, fmt.Errorf("series: fit line: %d points, need at least 2", n)
	}
	mx, _ := mstats.Mean(x)
	my, _ := mstats.Mean(y)
	var sxx, sxy, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxx += dx * dx
		sxy += dx * dy
		syy += dy * dy
	}
	if sxx == 0 {
		return Fit{}, fmt.Errorf("series: fit line: every x is %g, need two distinct", x[0])
	}
	f := Fit{N: n, Slope: sxy / sxx}
	f.Intercept = my - f.Slope*mx
	var sse float64
	for i := range x {
		r := y[i] - (f.Slope*x[i] + f.Intercept)
		sse += r * r
	}
	f.R2 = 1
	if syy > 0 {
		f.R2 = 1 - sse/syy
	}
	f.SlopeCI95 = [2]float64{f.Slope, f.Slope}
	if n > 2 {
		se := math.Sqrt(sse/float64(n-2)) / math.Sqrt(sxx)
		half := studentT975(n-2) * se
		f.SlopeCI95 = [2]float64{f.Slope - half, f.Slope + half}
	}
	return f, nil
}
