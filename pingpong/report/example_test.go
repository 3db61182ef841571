package report_test

import (
	"fmt"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
)

func ExampleProgress() {
	p := report.Progress{At: 3 * time.Second, Threads: 4, Interval: time.Second,
		Events: 12345, Queries: 24690, P95: 41.7}
	fmt.Printf("%.0f tps, %.0f qps\n", p.PerSecond(p.Events), p.PerSecond(p.QueryCount()))
	// Output:
	// 12345 tps, 24690 qps
}
