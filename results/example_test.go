package results_test

import (
	"fmt"
	"os"
	"time"

	"github.com/hoplat/hoplat/results"
)

// A queries/s series whose first run is half the steady rate: do a series
// of runs, discard the first few, average the remainder, and watch out for
// outliers.
func ExampleAnalyzeSeries() {
	qps := []float64{4253.60, 8685.55, 8324.28, 8680.88, 8321.53, 8391.27,
		8557.10, 8034.79, 7532.90, 8196.65, 7931.77, 7981.55}

	all := results.AnalyzeSeries(qps, 0)
	fmt.Printf("all runs: mean %.2f, outliers %v\n", all.Mean, all.Outliers)

	s := results.AnalyzeSeries(qps, 2)
	fmt.Printf("discard 2: mean %.2f median %.2f stddev %.2f ci95 [%.2f, %.2f] outliers %v\n",
		s.Mean, s.Median, s.StdDev, s.CI95[0], s.CI95[1], s.Outliers)
	// Output:
	// all runs: mean 7907.66, outliers [0]
	// discard 2: mean 8195.27 median 8259.09 stddev 336.21 ci95 [7954.76, 8435.78] outliers []
}

// One histogram per worker, merged when the run ends, then read in
// microseconds of round trip.
func ExampleHistogram() {
	workers := []*results.Histogram{results.NewHistogram(), results.NewHistogram()}
	for w, h := range workers {
		for i := range 1000 {
			h.Record(int64(20_000 + 10*i + w)) // 20 .. 30 µs
		}
	}
	run := results.NewHistogram()
	for _, h := range workers {
		run.Merge(h)
	}
	s := results.Summarize(run, time.Second)
	fmt.Printf("%d round trips, %.0f tps, p50 %.1f us, p99 %.1f us, max %.1f us\n",
		s.Count, s.TPS, s.P50, s.P99, s.Max)
	// Output:
	// 2000 round trips, 2000 tps, p50 25.0 us, p99 29.9 us, max 30.0 us
}

func ExampleProgress() {
	p := results.Progress{At: 3 * time.Second, Threads: 4, Interval: time.Second,
		Events: 12345, P95: 41.7}
	fmt.Println(p)
	// Output:
	// [ 3s ] thds: 4 tps: 12345.00 qps: 12345.00 lat (us,95%): 41.70 err/s: 0.00 reconn/s: 0.00
}

func ExampleWriteCSV() {
	h := results.NewHistogram()
	h.Record(25_000)
	r := results.Report{Steps: []results.Step{{Threads: 1, Runs: []results.Run{
		{Elapsed: time.Second, Latency: h, Events: []int64{1}},
	}}}}
	// HdrHistogram keeps 3 significant digits: 25 µs lands in the 16 ns wide
	// bucket 24.992 .. 25.007 µs; min is its low end, percentiles its high.
	if err := results.WriteCSV(os.Stdout, r); err != nil {
		fmt.Println(err)
	}
	// Output:
	// threads,run,discarded,outlier,elapsed_s,events,tps,queries,errors,reconnects,min_us,avg_us,p50_us,p90_us,p95_us,p99_us,p999_us,max_us
	// 1,0,false,false,1,1,1.000,1,0,0,24.992,25.000,25.007,25.007,25.007,25.007,25.007,25.007
}
