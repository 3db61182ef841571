package stats

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

// NsPerUs turns a histogram's nanoseconds into the microseconds figures
// are given in.
const NsPerUs = 1e3

// Us is ns nanoseconds in microseconds.
func Us(ns int64) float64 { return float64(ns) / NsPerUs }

// LatencyOf reads the distribution of h in microseconds. A nil or empty h
// gives the zero Latency.
func LatencyOf(h *Histogram) Latency {
	if h == nil || h.Count() == 0 {
		return Latency{}
	}
	return Latency{
		Count:   h.Count(),
		Min:     Us(h.Min()),
		Avg:     h.Mean() / NsPerUs,
		StdDev:  h.StdDev() / NsPerUs,
		P50:     Us(h.Quantile(50)),
		P90:     Us(h.Quantile(90)),
		P95:     Us(h.Quantile(95)),
		P99:     Us(h.Quantile(99)),
		P999:    Us(h.Quantile(99.9)),
		Max:     Us(h.Max()),
		Clamped: h.Clamped(),
	}
}
