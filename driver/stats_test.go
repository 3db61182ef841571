package driver

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestEstimate95(t *testing.T) {
	// mean 3, sample sd sqrt(2.5), t(4) = 2.776: half width 2.776*sqrt(2.5/5).
	e := Estimate95([]float64{1, 2, 3, 4, 5})
	half := 2.776 * math.Sqrt(0.5)
	if e.Mean != 3 || !near(e.CI95[0], 3-half, 1e-9) || !near(e.CI95[1], 3+half, 1e-9) || e.N != 5 {
		t.Errorf("got %+v, want 3 ± %v", e, half)
	}
	if e := Estimate95([]float64{7}); e.CI95 != [2]float64{7, 7} {
		t.Errorf("one value: %+v", e)
	}
	if e := Estimate95(nil); !math.IsNaN(e.Mean) {
		t.Errorf("no values: %+v", e)
	}
}

// Pairing removes a drift common to both series: the differences are
// constant, so the interval collapses onto the true difference.
func TestPairedDifferenceRemovesDrift(t *testing.T) {
	a := []float64{60, 70, 65, 90}
	b := []float64{20, 30, 25, 50}
	e, err := PairedDifference(a, b)
	if err != nil || e.Mean != 40 || e.CI95 != [2]float64{40, 40} {
		t.Errorf("got %+v, %v", e, err)
	}
	if _, err := PairedDifference(a, b[:2]); err == nil {
		t.Error("unequal lengths accepted")
	}
}

func TestFitLine(t *testing.T) {
	x := []float64{0, 1, 2, 3, 0, 1, 2, 3}
	y := []float64{25, 65, 105, 145, 27, 67, 107, 147} // 40/hop, 26 fixed
	f, err := FitLine(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !near(f.Slope, 40, 1e-9) || !near(f.Intercept, 26, 1e-9) || f.R2 < 0.99 || f.N != 8 {
		t.Errorf("fit %+v", f)
	}
	if !(f.SlopeCI95[0] <= 40 && 40 <= f.SlopeCI95[1]) {
		t.Errorf("slope CI %v misses 40", f.SlopeCI95)
	}
	if _, err := FitLine([]float64{1, 1}, []float64{2, 3}); err == nil {
		t.Error("one distinct x accepted")
	}
	if _, err := FitLine([]float64{1}, []float64{2}); err == nil {
		t.Error("one point accepted")
	}
}

func TestTQuantile(t *testing.T) {
	for _, tc := range []struct {
		df   int
		want float64
	}{{1, 12.706}, {10, 2.228}, {30, 2.042}, {40, 2.021}, {60, 2.000}, {120, 1.980}, {100000, 1.960}} {
		if got := tQuantile975(tc.df); !near(got, tc.want, 0.002) {
			t.Errorf("t(%d) = %.4f, want %.3f", tc.df, got, tc.want)
		}
	}
}
