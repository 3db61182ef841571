package report

import "time"

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

// PerSecond is n counted over p's interval as a rate per second; 0 for
// an empty interval.
func (p Progress) PerSecond(n int64) float64 { return perSecond(n, p.Interval) }

// QueryCount is the interval's queries: Queries, or Events where each
// event is one query.
func (p Progress) QueryCount() int64 {
	if p.Queries == 0 {
		return p.Events
	}
	return p.Queries
}
