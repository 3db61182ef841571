package stats

import (
	"math"
	"slices"
)

// Median is the middle of v, or the mean of the two middle values of an
// even count (for integer types, rounded towards zero as integer division
// rounds); 0 for no values. v is left as it is: Median sorts a copy. It is
// hoplat's one median: of rounds, of probe trials, of traced requests.
func Median[T ~int64 | ~float64](v []T) T {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return MedianSorted(s)
}

// MedianSorted is Median of values already in ascending order. A NaN
// among them has no rank: the median is then NaN.
func MedianSorted[T ~int64 | ~float64](sorted []T) T {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	for _, x := range sorted {
		if x != x {
			return x
		}
	}
	if n%2 == 1 {
		return sorted[n/2]
	}
	a, b := sorted[n/2-1], sorted[n/2]
	m := (a + b) / 2
	if f := float64(m); math.IsInf(f, 0) && !math.IsInf(float64(a), 0) && !math.IsInf(float64(b), 0) {
		return a/2 + b/2 // the sum overflowed; the mean does not
	}
	return m
}

// Quantile interpolates linearly between the two nearest of sorted values
// at q (0..1): Quantile(s, 0.25) is the first quartile. 0 for no values.
func Quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (pos-float64(i))*(sorted[i+1]-sorted[i])
}

// Rank is the index, in ascending order, of the nearest-rank quantile q
// (0..1) of n values: the smallest value at or below which a q share of
// them lie. Rank(n, 0.5) is the median's index, Rank(n, 0.99) the p99's.
// It is clamped to 0..n-1; n must be positive.
func Rank(n int, q float64) int {
	k := int(math.Ceil(q*float64(n))) - 1
	return max(0, min(k, n-1))
}
