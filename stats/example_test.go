package stats_test

import (
	"fmt"

	"github.com/hoplat/hoplat/stats"
)

// One histogram per worker, merged when the run ends, then read in
// microseconds of round trip.
func ExampleHistogram() {
	workers := []*stats.Histogram{stats.NewHistogram(), stats.NewHistogram()}
	for w, h := range workers {
		for i := range 1000 {
			h.Record(int64(20_000 + 10*i + w)) // 20 .. 30 µs
		}
	}
	run := stats.NewHistogram()
	for _, h := range workers {
		run.Merge(h)
	}
	l := stats.LatencyOf(run)
	fmt.Printf("%d round trips, p50 %.1f us, p99 %.1f us, max %.1f us\n", l.Count, l.P50, l.P99, l.Max)
	// Output:
	// 2000 round trips, p50 25.0 us, p99 29.9 us, max 30.0 us
}

// The one median: of a series of round p50s, of probe trials in
// nanoseconds, of traced requests.
func ExampleMedian() {
	fmt.Println(stats.Median([]float64{62, 61, 63, 62.5}), stats.Median([]int64{3, 1, 2}))
	sorted := []float64{1, 2, 3, 4, 5}
	fmt.Println(stats.Quantile(sorted, 0.25), stats.Rank(100, 0.99))
	// Output:
	// 62.25 2
	// 2 98
}
