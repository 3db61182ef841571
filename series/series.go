package series

import (
	"fmt"
	"math"
	"slices"

	mstats "github.com/montanaflynn/stats"

	"github.com/hoplat/hoplat/stats"
)

// Summary summarises repeated runs of one measurement (tps of each run, say):
// the first Discard values are warm-up and dropped, the rest are kept and
// summarised, and any kept run far from the others is named in Outliers, not
// removed from the figures.
type Summary struct {
	Values  []float64  `json:"-"`         // every run, discarded ones included
	Discard int        `json:"discarded"` // leading runs dropped
	N       int        `json:"n"`         // runs kept
	Mean    float64    `json:"mean"`
	Median  float64    `json:"median"`
	StdDev  float64    `json:"stddev"` // sample standard deviation (n-1)
	CI95    [2]float64 `json:"ci95"`   // 95% confidence interval of the mean
	// MedianCI95 is a distribution-free interval for the median: the k-th
	// smallest and k-th largest kept runs, k the largest rank that still
	// covers the median with probability >= 95% whatever the runs'
	// distribution (each run falls either side of the median with
	// probability ½, so the coverage is a binomial(n, ½) tail). One odd
	// round, a placement flip say, drags the mean towards itself; the
	// median moves by one rank at most, and only this interval's far end
	// reaches the odd round. Fewer than 6 runs cannot reach 95%: the interval is then
	// [min, max] and MedianCILevel says what it does cover (93.75% of 5
	// runs, 87.5% of 4).
	MedianCI95    [2]float64 `json:"median_ci95"`
	MedianCILevel float64    `json:"median_ci_level"`
	Outliers      []int      `json:"outliers"`
}

// Analyze drops the first discard values and summarises the rest. The
// confidence interval is mean ± t(0.975, n-1)·s/√n; with one kept run it is
// the run's value itself. Outliers are indices into values (the original
// series), chosen by outlierRule over the kept runs only. With no run kept
// (discard >= len(values)) N is 0 and every figure is 0, never NaN, so the
// Summary still encodes as JSON. discard is clamped to 0..len(values).
func Analyze(values []float64, discard int) Summary {
	discard = min(max(discard, 0), len(values))
	s := Summary{Values: values, Discard: discard, Outliers: []int{}}
	kept := mstats.Float64Data(values[discard:])
	s.N = len(kept)
	if s.N == 0 {
		return s
	}
	s.Mean, _ = kept.Mean()
	s.Median = stats.Median(kept)
	s.CI95 = [2]float64{s.Mean, s.Mean}
	s.MedianCI95, s.MedianCILevel = medianCI(kept)
	if s.N > 1 {
		s.StdDev, _ = kept.StandardDeviationSample()
		half := studentT975(s.N-1) * s.StdDev / math.Sqrt(float64(s.N))
		s.CI95 = [2]float64{s.Mean - half, s.Mean + half}
	}
	for _, i := range outlierRule(kept) {
		s.Outliers = append(s.Outliers, discard+i)
	}
	return s
}

// Kept returns the values that were summarised.
func (s Summary) Kept() []float64 { return s.Values[s.Discard:] }

// IsDiscarded reports whether run i of the original series was dropped.
func (s Summary) IsDiscarded(i int) bool { return i < s.Discard }

// IsOutlier reports whether run i of the original series was named an outlier.
func (s Summary) IsOutlier(i int) bool { return slices.Contains(s.Outliers, i) }

// medianCI is the order-statistic interval for the median of v described
// at Summary.MedianCI95, and the probability that it covers the median.
func medianCI(v mstats.Float64Data) ([2]float64, float64) {
	n := len(v)
	sorted := slices.Clone([]float64(v))
	slices.Sort(sorted)
	// level(k) = 1 - 2·P(Bin(n, ½) <= k-1): the chance that at least k runs
	// fall on each side of the median.
	tail, k, level := 0.0, 1, 0.0
	for j := 1; j <= n/2; j++ {
		tail += binomialHalf(n, j-1)
		l := 1 - 2*tail
		if j > 1 && l < 0.95 {
			break
		}
		k, level = j, l
	}
	if n == 1 {
		level = 0
	}
	return [2]float64{sorted[k-1], sorted[n-k]}, max(level, 0)
}

// binomialHalf is P(X = i) for X ~ binomial(n, ½), in logs so that no
// factorial overflows.
func binomialHalf(n, i int) float64 {
	ln, _ := math.Lgamma(float64(n + 1))
	li, _ := math.Lgamma(float64(i + 1))
	lr, _ := math.Lgamma(float64(n - i + 1))
	return math.Exp(ln - li - lr - float64(n)*math.Ln2)
}

// madScale turns a median absolute deviation into an estimate of the standard
// deviation of normal data (1/Φ⁻¹(3/4)); meanADScale does the same for the
// mean absolute deviation (√(π/2)).
const (
	madScale    = 1.4826
	meanADScale = 1.2533
	outlierK    = 3
)

// outlierRule returns the indices of the values farther than 3 robust
// standard deviations from their median, the robust deviation being the
// scaled median absolute deviation (Hampel's identifier). Mean and standard
// deviation would not do: one run at half speed drags both towards itself
// and hides. When more than half the runs are identical the MAD is 0; the
// mean absolute deviation about the median takes its place (as Iglewicz and
// Hoaglin's modified z-score does), so a lone odd run is still named rather
// than every run that differs in the last digit. Fewer than 3 runs have no
// majority to judge against and yield none.
func outlierRule(v mstats.Float64Data) []int {
	if len(v) < 3 {
		return nil
	}
	med := stats.Median(v)
	dev := make(mstats.Float64Data, len(v))
	for i, x := range v {
		dev[i] = math.Abs(x - med)
	}
	mad := stats.Median(dev)
	spread := madScale * mad
	if spread == 0 {
		meanAD, _ := dev.Mean()
		spread = meanADScale * meanAD
	}
	if spread == 0 {
		return nil
	}
	var out []int
	for i, d := range dev {
		if d > outlierK*spread {
			out = append(out, i)
		}
	}
	return out
}

// Paired summarises the differences b[i]-a[i] of two series measured in
// interleaved rounds (A B A B ...): the added latency of set-up b over a,
// with the round-to-round drift of the machine cancelled pair by pair.
func Paired(a, b []float64) (Summary, error) {
	if len(a) != len(b) {
		return Summary{}, fmt.Errorf("series: paired series of unequal length: %d and %d", len(a), len(b))
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return Analyze(d, 0), nil
}
