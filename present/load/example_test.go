package load_test

import (
	"fmt"
	"os"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present/load"
	"github.com/hoplat/hoplat/stats"
)

func ExampleWriteCSV() {
	h := stats.NewHistogram()
	h.Record(25_000)
	r := report.Report{Steps: []report.Step{{Threads: 1, Runs: []report.Run{
		{Elapsed: time.Second, Latency: h, Events: []int64{1}},
	}}}}
	// HdrHistogram keeps 3 significant digits: 25 µs lands in the 16 ns wide
	// bucket 24.992 .. 25.007 µs; min is its low end, percentiles its high.
	if err := load.WriteCSV(os.Stdout, r); err != nil {
		fmt.Println(err)
	}
	// Output:
	// threads,run,discarded,outlier,elapsed_s,events,tps,queries,errors,reconnects,min_us,avg_us,p50_us,p90_us,p95_us,p99_us,p999_us,max_us
	// 1,0,false,false,1,1,1.000,1,0,0,24.992,25.000,25.007,25.007,25.007,25.007,25.007,25.007
}

func ExampleProgressLine() {
	p := report.Progress{At: 3 * time.Second, Threads: 4, Interval: time.Second,
		Events: 12345, P95: 41.7}
	fmt.Println(load.ProgressLine(p))
	// Output:
	// [ 3s ] thds: 4 tps: 12345.00 qps: 12345.00 lat (us,95%): 41.70 err/s: 0.00 reconn/s: 0.00
}
