package stats

// Tick is one line of a histogram's percentile distribution: the value at
// or below which Percentile percent (0..100) of the Count values recorded
// so far lie.
type Tick struct {
	ValueNs    int64
	Percentile float64
	Count      int64
}

// Distribution is h's cumulative percentile distribution with ticks per
// half distance to 100%, as HdrHistogram's outputPercentileDistribution
// steps it (5 is Java's and wrk2's default): what an .hgrm file lists.
func (h *Histogram) Distribution(ticks int) []Tick {
	var out []Tick
	for _, b := range h.h.CumulativeDistributionWithTicks(int32(ticks)) {
		out = append(out, Tick{ValueNs: b.ValueAt, Percentile: b.Quantile, Count: b.Count})
	}
	return out
}

// SpectrumTicks is the ticks per half distance of Spectrum: the .hgrm
// file's.
const SpectrumTicks = 5

// Spectrum is h's percentile spectrum as the .hgrm file lists it
// (SpectrumTicks ticks per half distance): percentiles from 0 to 100 and
// the latency in microseconds at each, for a plot. The maximum is placed at
// the percentile of the last of n values, 100(1-1/n), as HdrHistogram's
// plotter does, since 100% lies at infinity on a 1/(1-q) axis. An empty h
// has no spectrum.
func (h *Histogram) Spectrum() (pct, us []float64) {
	n := float64(h.Count())
	if n == 0 {
		return nil, nil
	}
	for _, b := range h.h.CumulativeDistributionWithTicks(SpectrumTicks) {
		q := b.Quantile
		if q >= 100 {
			q = 100 * (1 - 1/n)
		}
		if len(pct) > 0 && q <= pct[len(pct)-1] {
			continue
		}
		pct = append(pct, q)
		us = append(us, float64(b.ValueAt)/NsPerUs)
	}
	return pct, us
}

// Layout is the bucket layout HdrHistogram derives from Histogram's range
// and precision, as Java's .hgrm trailer reports it: the counters' count,
// for a check that the trailer names the layout really built.
func (h *Histogram) Layout() (counters int) { return len(h.h.Export().Counts) }
