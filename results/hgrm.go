package results

import (
	"bufio"
	"fmt"
	"io"
)

// hgrmTicks is the percentile ticks per half distance to 100% that Java's
// HistogramLogProcessor and wrk2 print by default.
const hgrmTicks = 5

// WriteHgrm writes h as HdrHistogram's percentile distribution, in
// microseconds, byte for byte in the layout of Java's
// outputPercentileDistribution (which HdrHistogram's plotFiles.html and
// wrk2 users read): a Value/Percentile/TotalCount/1/(1-Percentile) table,
// the 100% line without its infinite last column, and the #[Mean ...]
// trailer. hdrhistogram-go's PercentilesPrint differs (tab-separated header,
// "inf" on the last line), hence this writer.
func WriteHgrm(w io.Writer, h *Histogram) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	for _, b := range h.h.CumulativeDistributionWithTicks(hgrmTicks) {
		if h.Count() == 0 {
			break
		}
		v := float64(b.ValueAt) / nsPerUs
		q := b.Quantile / 100
		if b.Quantile == 100 {
			fmt.Fprintf(bw, "%12.3f %2.12f %10d\n", v, q, b.Count)
			continue
		}
		fmt.Fprintf(bw, "%12.3f %2.12f %10d %14.2f\n", v, q, b.Count, 1/(1-q))
	}
	fmt.Fprintf(bw, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", h.Mean()/nsPerUs, h.StdDev()/nsPerUs)
	fmt.Fprintf(bw, "#[Max     = %12.3f, Total count    = %12d]\n", us(h.Max()), h.Count())
	fmt.Fprintf(bw, "#[Buckets = %12d, SubBuckets     = %12d]\n", hgrmBuckets, hgrmSubBuckets)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("results: hgrm: %w", err)
	}
	return nil
}

// The bucket layout HdrHistogram derives from 1 ns .. 60 s at 3 digits, which
// the trailer reports as Java does: sub-buckets of 2048 values (the power of
// two at or above 2·10³, for unit resolution up to 2000 ns), and buckets that
// each double the range until 60 s fits (2048·2²⁵ ns ≈ 68.7 s).
const (
	hgrmSubBuckets = 2048
	hgrmBuckets    = 26
)

// Spectrum is h's percentile spectrum as the .hgrm file lists it (hgrmTicks
// ticks per half distance): percentiles from 0 to 100 and the latency in
// microseconds at each, for a plot. The maximum is placed at the percentile
// of the last of n values, 100(1-1/n), as HdrHistogram's plotter does, since
// 100% lies at infinity on a 1/(1-q) axis. An empty h has no spectrum.
func (h *Histogram) Spectrum() (pct, us []float64) {
	n := float64(h.Count())
	if n == 0 {
		return nil, nil
	}
	for _, b := range h.h.CumulativeDistributionWithTicks(hgrmTicks) {
		q := b.Quantile
		if q >= 100 {
			q = 100 * (1 - 1/n)
		}
		if len(pct) > 0 && q <= pct[len(pct)-1] {
			continue
		}
		pct = append(pct, q)
		us = append(us, float64(b.ValueAt)/nsPerUs)
	}
	return pct, us
}
