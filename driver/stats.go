package driver

import (
	"fmt"
	"math"
)

// Estimate is a mean with its 95% confidence interval (Student's t, since a
// run has a handful of rounds, not hundreds).
type Estimate struct {
	Mean float64
	CI95 [2]float64
	N    int
}

// Estimate95 summarises values. With one value the interval is that value;
// with none, everything is NaN.
func Estimate95(values []float64) Estimate {
	n := len(values)
	if n == 0 {
		return Estimate{Mean: math.NaN(), CI95: [2]float64{math.NaN(), math.NaN()}}
	}
	var sum float64
	for _, v := range values {
		sum += v
	}
	mean := sum / float64(n)
	if n == 1 {
		return Estimate{Mean: mean, CI95: [2]float64{mean, mean}, N: 1}
	}
	var ss float64
	for _, v := range values {
		ss += (v - mean) * (v - mean)
	}
	half := tQuantile975(n-1) * math.Sqrt(ss/float64(n-1)/float64(n))
	return Estimate{Mean: mean, CI95: [2]float64{mean - half, mean + half}, N: n}
}

// PairedDifference estimates the mean of a[i]-b[i]: the rounds were
// interleaved, so round i of a and round i of b saw the same machine state,
// and pairing removes the drift between rounds that would otherwise widen
// the interval.
func PairedDifference(a, b []float64) (Estimate, error) {
	if len(a) != len(b) {
		return Estimate{}, fmt.Errorf("driver: paired difference of %d and %d values", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - b[i]
	}
	return Estimate95(d), nil
}

// Fit is a least-squares line y = Intercept + Slope*x, with the slope's 95%
// confidence interval and the coefficient of determination.
type Fit struct {
	Slope, Intercept float64
	SlopeCI95        [2]float64
	R2               float64
	N                int
}

// FitLine fits y against x by ordinary least squares. It needs at least two
// distinct x values; the slope's interval needs three points.
func FitLine(x, y []float64) (Fit, error) {
	n := len(x)
	if n != len(y) {
		return Fit{}, fmt.Errorf("driver: fit line to %d x and %d y values", n, len(y))
	}
	if n < 2 {
		return Fit{}, fmt.Errorf("driver: fit line to %d points, need 2", n)
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(n)
	my /= float64(n)
	var sxx, sxy, syy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
		syy += (y[i] - my) * (y[i] - my)
	}
	if sxx == 0 {
		return Fit{}, fmt.Errorf("driver: fit line: every x is %v", x[0])
	}
	f := Fit{Slope: sxy / sxx, N: n}
	f.Intercept = my - f.Slope*mx
	var sse float64
	for i := range x {
		r := y[i] - (f.Intercept + f.Slope*x[i])
		sse += r * r
	}
	f.R2 = 1
	if syy > 0 {
		f.R2 = 1 - sse/syy
	}
	f.SlopeCI95 = [2]float64{f.Slope, f.Slope}
	if n > 2 {
		half := tQuantile975(n-2) * math.Sqrt(sse/float64(n-2)/sxx)
		f.SlopeCI95 = [2]float64{f.Slope - half, f.Slope + half}
	}
	return f, nil
}

// t975 holds Student's t 0.975 quantile for 1..30 degrees of freedom.
var t975 = [...]float64{
	12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
	2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
	2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
}

// tQuantile975 is the two-sided 95% critical value of Student's t with df
// degrees of freedom: the table up to 30, then the Cornish-Fisher expansion
// around the normal quantile, which is within 0.001 of the exact value there.
func tQuantile975(df int) float64 {
	if df < 1 {
		return math.NaN()
	}
	if df <= len(t975) {
		return t975[df-1]
	}
	const z = 1.959964
	n := float64(df)
	return z + (z*z*z+z)/(4*n) + (5*math.Pow(z, 5)+16*z*z*z+3*z)/(96*n*n)
}
