package stats

import (
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// The recordable range: 1 ns up to 60 s, with 3 significant digits, so a value
// is kept within 0.1% of itself at any size. A round trip that takes
// longer than a minute is a stall, not a latency; it is clamped, and counted.
const (
	lowestNs        = 1
	highestNs       = int64(60 * time.Second)
	significantDigs = 3
)

// Histogram holds round-trip latencies in nanoseconds. It is not safe for
// concurrent use: give each worker its own and Merge them when the run ends.
// One histogram takes 216 KiB (27,648 counters) whatever it holds, so a
// load client with hundreds of workers should Reset and reuse them per run.
type Histogram struct {
	h       *hdrhistogram.Histogram
	clamped int64
}

// NewHistogram returns an empty histogram covering the recordable range
// (lowestNs .. highestNs) at significantDigs significant digits.
func NewHistogram() *Histogram {
	return &Histogram{h: hdrhistogram.New(lowestNs, highestNs, significantDigs)}
}

// clamp brings v inside the recordable range. Values above it are counted in
// clamped so a report can say how many stalls were cut short; values below 1
// (a clock that went backwards, or a zero-length measurement) become lowestNs.
func (h *Histogram) clamp(v int64) int64 {
	if v > highestNs {
		h.clamped++
		return highestNs
	}
	if v < lowestNs {
		return lowestNs
	}
	return v
}

// Record adds one latency of ns nanoseconds. It never allocates: the value is
// clamped into range first, so hdrhistogram never has to build an error.
func (h *Histogram) Record(ns int64) {
	_ = h.h.RecordValue(h.clamp(ns))
}

// Merge adds every value of o into h. Both cover the same range, so nothing
// is dropped. A nil o is a no-op.
func (h *Histogram) Merge(o *Histogram) {
	if o == nil {
		return
	}
	h.h.Merge(o.h)
	h.clamped += o.clamped
}

// Reset empties h for reuse without freeing its counters.
func (h *Histogram) Reset() {
	h.h.Reset()
	h.clamped = 0
}

// Count is the number of values recorded, including corrected back-fills.
func (h *Histogram) Count() int64 { return h.h.TotalCount() }

// Clamped is the number of values that exceeded 60 s and were recorded as 60 s.
func (h *Histogram) Clamped() int64 { return h.clamped }

// Quantile returns the value in nanoseconds at or below which q percent of the
// recorded values lie. q is a percentile in 0..100, as in HdrHistogram
// (Quantile(99.9) is p99.9), not a fraction in 0..1. It returns 0 when h is
// empty.
func (h *Histogram) Quantile(q float64) int64 { return h.h.ValueAtQuantile(q) }

// Min returns the smallest recorded value in nanoseconds (0 when empty).
func (h *Histogram) Min() int64 {
	if h.Count() == 0 {
		return 0
	}
	return h.h.Min()
}

// Max returns the largest recorded value in nanoseconds (0 when empty).
func (h *Histogram) Max() int64 {
	if h.Count() == 0 {
		return 0
	}
	return h.h.Max()
}

// Mean returns the mean of the recorded values in nanoseconds.
func (h *Histogram) Mean() float64 { return h.h.Mean() }

// StdDev returns the population standard deviation in nanoseconds.
func (h *Histogram) StdDev() float64 { return h.h.StdDev() }
