package results

import (
	"time"

	"github.com/montanaflynn/stats"
)

// Latency is the distribution of a histogram in microseconds of full round
// trip, the unit every hoplat figure uses (sockperf prints half a round trip).
type Latency struct {
	Count   int64   `json:"count"`
	Min     float64 `json:"min"`
	Avg     float64 `json:"avg"`
	StdDev  float64 `json:"stddev"`
	P50     float64 `json:"p50"`
	P90     float64 `json:"p90"`
	P95     float64 `json:"p95"`
	P99     float64 `json:"p99"`
	P999    float64 `json:"p999"`
	Max     float64 `json:"max"`
	Clamped int64   `json:"clamped,omitempty"` // values above 60 s, counted as 60 s
}

const nsPerUs = 1e3

func us(ns int64) float64 { return float64(ns) / nsPerUs }

// LatencyOf reads the distribution of h in microseconds. A nil or empty h
// gives the zero Latency.
func LatencyOf(h *Histogram) Latency {
	if h == nil || h.Count() == 0 {
		return Latency{}
	}
	return Latency{
		Count:   h.Count(),
		Min:     us(h.Min()),
		Avg:     h.Mean() / nsPerUs,
		StdDev:  h.StdDev() / nsPerUs,
		P50:     us(h.Quantile(50)),
		P90:     us(h.Quantile(90)),
		P95:     us(h.Quantile(95)),
		P99:     us(h.Quantile(99)),
		P999:    us(h.Quantile(99.9)),
		Max:     us(h.Max()),
		Clamped: h.Clamped(),
	}
}

// Summary is a histogram read over the time it was recorded in.
type Summary struct {
	Latency
	Elapsed time.Duration `json:"-"`
	TPS     float64       `json:"tps"` // recorded values per second of Elapsed
}

// Summarize reads h over elapsed. TPS is 0 when elapsed is not positive, so a
// summary never carries an infinity into JSON.
func Summarize(h *Histogram, elapsed time.Duration) Summary {
	l := LatencyOf(h)
	return Summary{Latency: l, Elapsed: elapsed, TPS: perSecond(l.Count, elapsed)}
}

func perSecond(n int64, elapsed time.Duration) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(n) / elapsed.Seconds()
}

// Fairness is how evenly the events spread over the workers, as sysbench's
// "Threads fairness: events (avg/stddev)": the mean events per worker and
// their population standard deviation (sysbench divides by the thread count).
type Fairness struct {
	EventsAvg    float64 `json:"events_avg"`
	EventsStdDev float64 `json:"events_stddev"`
}

// FairnessOf computes the fairness of per-worker event counts.
func FairnessOf(events []int64) Fairness {
	if len(events) == 0 {
		return Fairness{}
	}
	f := make(stats.Float64Data, len(events))
	for i, e := range events {
		f[i] = float64(e)
	}
	avg, _ := f.Mean()
	sd, _ := f.StandardDeviationPopulation()
	return Fairness{EventsAvg: avg, EventsStdDev: sd}
}
