package report

import (
	"fmt"
	"time"
)

// Progress is what the load client counted over one --report-interval.
type Progress struct {
	At         time.Duration // since the measurement started, at the interval's end
	Threads    int
	Interval   time.Duration // length of the interval the counts cover
	Events     int64
	Queries    int64 // 0 means one query per event
	Errors     int64
	Reconnects int64
	P95        float64 // round trip in microseconds over the interval
}

// String formats p as one line in the shape of sysbench's --report-interval
// output, with latency in microseconds:
//
//	[ 3s ] thds: 4 tps: 1234.56 qps: 1234.56 lat (us,95%): 123.45 err/s: 0.00 reconn/s: 0.00
func (p Progress) String() string {
	q := p.Queries
	if q == 0 {
		q = p.Events
	}
	at := fmt.Sprintf("%ds", int64(p.At/time.Second))
	if p.At%time.Second != 0 {
		at = fmt.Sprintf("%.1fs", p.At.Seconds())
	}
	return fmt.Sprintf("[ %s ] thds: %d tps: %.2f qps: %.2f lat (us,95%%): %.2f err/s: %.2f reconn/s: %.2f",
		at, p.Threads, perSecond(p.Events, p.Interval), perSecond(q, p.Interval), p.P95,
		perSecond(p.Errors, p.Interval), perSecond(p.Reconnects, p.Interval))
}
