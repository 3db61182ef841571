package report_test

import (
	"fmt"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
)

func ExampleProgress() {
	p := report.Progress{At: 3 * time.Second, Threads: 4, Interval: time.Second,
		Events: 12345, P95: 41.7}
	fmt.Println(p)
	// Output:
	// [ 3s ] thds: 4 tps: 12345.00 qps: 12345.00 lat (us,95%): 41.70 err/s: 0.00 reconn/s: 0.00
}
