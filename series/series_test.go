package series

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	mstats "github.com/montanaflynn/stats"
)

// fieldNotesSeries is a queries/s series of 12 runs (FreeBSD UNIX socket
// locking, 2006): run 0 is half the steady rate, run 1 overshoots.
var fieldNotesSeries = []float64{
	4253.60, 8685.55, 8324.28, 8680.88, 8321.53, 8391.27,
	8557.10, 8034.79, 7532.90, 8196.65, 7931.77, 7981.55,
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol }

func TestSeriesFieldNotesOutliers(t *testing.T) {
	for _, c := range []struct {
		discard int
		want    []int
	}{
		// Median 8259.09, scaled MAD 426.66: run 0 (4253.60) is 9.4 robust
		// deviations below, the slowest other run (7532.90) only 1.7.
		{0, []int{0}},
		// Discarding the warm-up runs leaves nothing to name.
		{2, []int{}},
	} {
		s := Analyze(fieldNotesSeries, c.discard)
		if !slices.Equal(s.Outliers, c.want) {
			t.Errorf("discard %d: outliers %v, want %v", c.discard, s.Outliers, c.want)
		}
	}
}

func TestSeriesStatistics(t *testing.T) {
	s := Analyze(fieldNotesSeries, 2)
	kept := fieldNotesSeries[2:]
	var sum float64
	for _, v := range kept {
		sum += v
	}
	mean := sum / float64(len(kept))
	var ss float64
	for _, v := range kept {
		ss += (v - mean) * (v - mean)
	}
	sd := math.Sqrt(ss / float64(len(kept)-1))
	half := 2.262157163 * sd / math.Sqrt(float64(len(kept))) // t(0.975, 9)
	if s.N != 10 || s.Discard != 2 {
		t.Errorf("N, Discard = %d, %d; want 10, 2", s.N, s.Discard)
	}
	if !near(s.Mean, mean, 1e-9) || !near(s.StdDev, sd, 1e-9) {
		t.Errorf("Mean, StdDev = %v, %v; want %v, %v", s.Mean, s.StdDev, mean, sd)
	}
	if !near(s.Median, (8196.65+8321.53)/2, 1e-9) {
		t.Errorf("Median = %v, want %v", s.Median, (8196.65+8321.53)/2)
	}
	if !near(s.CI95[0], mean-half, 1e-6) || !near(s.CI95[1], mean+half, 1e-6) {
		t.Errorf("CI95 = %v, want [%v, %v]", s.CI95, mean-half, mean+half)
	}
	if !slices.Equal(s.Kept(), kept) || !s.IsDiscarded(1) || s.IsDiscarded(2) {
		t.Errorf("Kept/IsDiscarded disagree with discard 2")
	}
}

func TestSeriesEdges(t *testing.T) {
	for _, c := range []struct {
		name     string
		values   []float64
		discard  int
		n        int
		mean     float64
		ci       [2]float64
		outliers []int
	}{
		{"one run: degenerate CI", []float64{42}, 0, 1, 42, [2]float64{42, 42}, []int{}},
		{"all discarded", []float64{1, 2}, 2, 0, 0, [2]float64{0, 0}, []int{}},
		{"discard past end", []float64{1, 2}, 5, 0, 0, [2]float64{0, 0}, []int{}},
		{"negative discard", []float64{3, 3}, -1, 2, 3, [2]float64{3, 3}, []int{}},
		{"empty", nil, 0, 0, 0, [2]float64{0, 0}, []int{}},
		// 1..5: s = √2.5, half = t(4)·s/√5 = 2.776445105·0.707106781.
		{"1..5", []float64{1, 2, 3, 4, 5}, 0, 5, 3, [2]float64{3 - 1.963243, 3 + 1.963243}, []int{}},
		// More than half identical: MAD is 0, the mean absolute deviation
		// judges instead, and only the lone slow run is named.
		{"MAD zero", []float64{100, 100, 100, 100, 100, 50, 101}, 0, 7, 93, [2]float64{}, []int{5}},
		{"all equal", []float64{7, 7, 7, 7}, 0, 4, 7, [2]float64{7, 7}, []int{}},
		{"two runs: no majority", []float64{1, 1000}, 0, 2, 500.5, [2]float64{}, []int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Analyze(c.values, c.discard)
			if s.N != c.n || !near(s.Mean, c.mean, 1e-9) {
				t.Errorf("N, Mean = %d, %v; want %d, %v", s.N, s.Mean, c.n, c.mean)
			}
			if c.ci != ([2]float64{}) && (!near(s.CI95[0], c.ci[0], 1e-6) || !near(s.CI95[1], c.ci[1], 1e-6)) {
				t.Errorf("CI95 = %v, want %v", s.CI95, c.ci)
			}
			if !slices.Equal(s.Outliers, c.outliers) {
				t.Errorf("Outliers = %v, want %v", s.Outliers, c.outliers)
			}
			if _, err := json.Marshal(s); err != nil {
				t.Errorf("json: %v", err)
			}
		})
	}
}

// The t table and its expansion are checked against an independent
// implementation: montanaflynn/stats' t-test computes the p-value from the
// regularized incomplete beta function. A sample whose t statistic equals our
// critical value must have a two-sided p-value of exactly 0.05.
func TestStudentT975(t *testing.T) {
	for dof := 1; dof <= 200; dof++ {
		tc := studentT975(dof)
		n := dof + 1
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i)
		}
		mean, _ := mstats.Mean(data)
		sd, _ := mstats.StandardDeviationSample(data)
		mu := mean - tc*sd/math.Sqrt(float64(n))
		tstat, p, err := mstats.TTest(data, nil, mu)
		if err != nil {
			t.Fatalf("dof %d: TTest: %v", dof, err)
		}
		if !near(tstat, tc, 1e-9) || !near(p, 0.05, 2e-8) {
			t.Errorf("dof %d: t = %v gives p = %.10f, want 0.05", dof, tc, p)
		}
	}
	if studentT975(0) != 0 {
		t.Errorf("dof 0: want 0 (no interval)")
	}
}

func TestPaired(t *testing.T) {
	// Interleaved rounds: the machine drifts by hundreds of µs between
	// rounds, but the relay adds 40 µs ± 1 in each; pairing cancels the drift.
	direct := []float64{25, 300, 26, 500, 24}
	relay := []float64{65, 341, 65, 540, 64}
	s, err := Paired(direct, relay)
	if err != nil {
		t.Fatal(err)
	}
	if !near(s.Mean, 40, 1e-9) || s.N != 5 || s.CI95[0] < 38 || s.CI95[1] > 42 {
		t.Errorf("Paired: mean %v, CI %v, n %d; want 40 within [38, 42], 5", s.Mean, s.CI95, s.N)
	}
	if _, err := Paired([]float64{1}, []float64{1, 2}); err == nil {
		t.Error("Paired of unequal lengths: want an error")
	}
}

func TestFitLine(t *testing.T) {
	// y = 2x + 1 plus residuals ±d orthogonal to 1 and x, so the fit is
	// exactly slope 2, intercept 1, SSE 4d², Sxx 5, Syy 20+4d².
	const d = 0.5
	x := []float64{0, 1, 2, 3}
	y := []float64{1 + d, 3 - d, 5 - d, 7 + d}
	f, err := FitLine(x, y)
	if err != nil {
		t.Fatal(err)
	}
	half := 4.302652730 * math.Sqrt(4*d*d/2) / math.Sqrt(5)
	if f.N != 4 || !near(f.Slope, 2, 1e-12) || !near(f.Intercept, 1, 1e-12) || !near(f.R2, 1-4*d*d/(20+4*d*d), 1e-12) {
		t.Errorf("Fit = %+v; want slope 2, intercept 1, r2 %v", f, 1-4*d*d/(20+4*d*d))
	}
	if !near(f.SlopeCI95[0], 2-half, 1e-9) || !near(f.SlopeCI95[1], 2+half, 1e-9) {
		t.Errorf("SlopeCI95 = %v, want [%v, %v]", f.SlopeCI95, 2-half, 2+half)
	}

	f, err = FitLine([]float64{0, 1}, []float64{25, 70})
	if err != nil || f.Slope != 45 || f.SlopeCI95 != [2]float64{45, 45} || f.R2 != 1 {
		t.Errorf("two points: %+v, %v; want exact slope 45 with a point interval", f, err)
	}
	f, err = FitLine([]float64{0, 1, 2}, []float64{5, 5, 5})
	if err != nil || f.Slope != 0 || f.R2 != 1 {
		t.Errorf("flat: %+v, %v; want slope 0, r2 1", f, err)
	}
	for _, bad := range [][2][]float64{
		{{1, 2}, {1}},
		{{1}, {1}},
		{{2, 2, 2}, {1, 2, 3}},
	} {
		if _, err := FitLine(bad[0], bad[1]); err == nil {
			t.Errorf("FitLine(%v, %v): want an error", bad[0], bad[1])
		}
	}
}

// FuzzAnalyzeSeries checks the invariants of any series a run could produce:
// outliers are kept runs, the interval holds the mean, and the JSON encodes.
func FuzzAnalyzeSeries(f *testing.F) {
	f.Add(4253.60, 8685.55, 8324.28, 8680.88, 8321.53, 0)
	f.Add(1.0, 1.0, 1.0, 1.0, 50.0, 1)
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, 7)
	f.Fuzz(func(t *testing.T, a, b, c, d, e float64, discard int) {
		values := []float64{a, b, c, d, e}
		for _, v := range values {
			if math.IsNaN(v) || math.Abs(v) > 1e12 {
				t.Skip()
			}
		}
		s := Analyze(values, discard)
		for _, i := range s.Outliers {
			if i < s.Discard || i >= len(values) {
				t.Fatalf("outlier %d outside the kept runs %d..%d", i, s.Discard, len(values)-1)
			}
		}
		tol := 1e-9 * max(1, math.Abs(s.Mean))
		if s.N > 0 && (s.CI95[0] > s.Mean+tol || s.CI95[1] < s.Mean-tol) {
			t.Fatalf("CI %v does not hold mean %v", s.CI95, s.Mean)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("json: %v", err)
		}
	})
}

// The median's interval is order statistics with their exact binomial
// coverage, and one wild round moves neither end by more than a rank.
func TestSeriesMedianCI(t *testing.T) {
	for _, c := range []struct {
		values []float64
		ci     [2]float64
		level  float64
	}{
		{[]float64{3}, [2]float64{3, 3}, 0},
		{[]float64{4, 1}, [2]float64{1, 4}, 0.5},
		{[]float64{5, 1, 4, 2, 3}, [2]float64{1, 5}, 1 - 2.0/32},
		{[]float64{6, 1, 5, 2, 4, 3}, [2]float64{1, 6}, 1 - 2.0/64},
		{[]float64{8, 1, 7, 2, 6, 3, 5, 4}, [2]float64{1, 8}, 1 - 2.0/256},
		// Nine runs: the second smallest and second largest, 1-2·10/512.
		{[]float64{9, 1, 8, 2, 7, 3, 6, 4, 5}, [2]float64{2, 8}, 1 - 20.0/512},
	} {
		s := Analyze(c.values, 0)
		if s.MedianCI95 != c.ci || math.Abs(s.MedianCILevel-c.level) > 1e-12 {
			t.Errorf("%v: median CI %v at %.4f, want %v at %.4f", c.values, s.MedianCI95, s.MedianCILevel, c.ci, c.level)
		}
	}
	// Six rounds near 11 and one at 26 (a placement flip): the mean moves
	// by 2, the median by less than a rank, and only the interval's top
	// follows the odd round.
	calm := Analyze([]float64{11.2, 11.5, 11.4, 11.8, 12.0, 11.6, 11.3}, 1)
	odd := Analyze([]float64{11.2, 11.5, 26.0, 11.8, 12.0, 11.6, 11.3}, 1)
	if math.Abs(odd.Median-calm.Median) > 0.2 {
		t.Errorf("one odd round moved the median from %v to %v", calm.Median, odd.Median)
	}
	if odd.MedianCI95[0] != calm.MedianCI95[0] || odd.MedianCI95[1] != 26 || odd.Mean-calm.Mean < 2 {
		t.Errorf("calm %+v, odd %+v", calm, odd)
	}
	for n := 1; n <= 200; n++ {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		s := Analyze(v, 0)
		if math.IsNaN(s.MedianCILevel) || s.MedianCILevel < 0 || s.MedianCILevel > 1 || (n >= 6 && s.MedianCILevel < 0.95) {
			t.Errorf("%d runs: median CI level %v", n, s.MedianCILevel)
		}
		if s.MedianCI95[0] > s.Median || s.MedianCI95[1] < s.Median {
			t.Errorf("%d runs: median %v outside its interval %v", n, s.Median, s.MedianCI95)
		}
	}
}
