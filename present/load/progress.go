package load

import (
	"fmt"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
)

// ProgressLine says p as one line in the shape of sysbench's
// --report-interval output, with latency in microseconds:
//
//	[ 3s ] thds: 4 tps: 1234.56 qps: 1234.56 lat (us,95%): 123.45 err/s: 0.00 reconn/s: 0.00
func ProgressLine(p report.Progress) string {
	at := fmt.Sprintf("%ds", int64(p.At/time.Second))
	if p.At%time.Second != 0 {
		at = fmt.Sprintf("%.1fs", p.At.Seconds())
	}
	return fmt.Sprintf("[ %s ] thds: %d tps: %.2f qps: %.2f lat (us,95%%): %.2f err/s: %.2f reconn/s: %.2f",
		at, p.Threads, p.PerSecond(p.Events), p.PerSecond(p.QueryCount()), p.P95,
		p.PerSecond(p.Errors), p.PerSecond(p.Reconnects))
}
