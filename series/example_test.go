package series_test

import (
	"fmt"

	"github.com/hoplat/hoplat/series"
)

// A queries/s series whose first run is half the steady rate: do a series
// of runs, discard the first few, average the remainder, and watch out for
// outliers.
func ExampleAnalyze() {
	qps := []float64{4253.60, 8685.55, 8324.28, 8680.88, 8321.53, 8391.27,
		8557.10, 8034.79, 7532.90, 8196.65, 7931.77, 7981.55}

	all := series.Analyze(qps, 0)
	fmt.Printf("all runs: mean %.2f, outliers %v\n", all.Mean, all.Outliers)

	s := series.Analyze(qps, 2)
	fmt.Printf("discard 2: mean %.2f median %.2f stddev %.2f ci95 [%.2f, %.2f] outliers %v\n",
		s.Mean, s.Median, s.StdDev, s.CI95[0], s.CI95[1], s.Outliers)
	// Output:
	// all runs: mean 7907.66, outliers [0]
	// discard 2: mean 8195.27 median 8259.09 stddev 336.21 ci95 [7954.76, 8435.78] outliers []
}
