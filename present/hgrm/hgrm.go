package hgrm

import (
	"bufio"
	"fmt"
	"io"

	"github.com/hoplat/hoplat/stats"
)

// hgrmTicks is the percentile ticks per half distance to 100% that Java's
// HistogramLogProcessor and wrk2 print by default, and the plots' spectrum
// steps by.
const hgrmTicks = stats.SpectrumTicks

// Write writes h as HdrHistogram's percentile distribution, in
// microseconds, byte for byte in the layout of Java's
// outputPercentileDistribution (which HdrHistogram's plotFiles.html and
// wrk2 users read): a Value/Percentile/TotalCount/1/(1-Percentile) table,
// the 100% line without its infinite last column, and the #[Mean ...]
// trailer. hdrhistogram-go's PercentilesPrint differs (tab-separated header,
// "inf" on the last line), hence this writer.
func Write(w io.Writer, h *stats.Histogram) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	for _, b := range h.Distribution(hgrmTicks) {
		if h.Count() == 0 {
			break
		}
		v := float64(b.ValueNs) / stats.NsPerUs
		q := b.Percentile / 100
		if b.Percentile == 100 {
			fmt.Fprintf(bw, "%12.3f %2.12f %10d\n", v, q, b.Count)
			continue
		}
		fmt.Fprintf(bw, "%12.3f %2.12f %10d %14.2f\n", v, q, b.Count, 1/(1-q))
	}
	fmt.Fprintf(bw, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", h.Mean()/stats.NsPerUs, h.StdDev()/stats.NsPerUs)
	fmt.Fprintf(bw, "#[Max     = %12.3f, Total count    = %12d]\n", stats.Us(h.Max()), h.Count())
	fmt.Fprintf(bw, "#[Buckets = %12d, SubBuckets     = %12d]\n", hgrmBuckets, hgrmSubBuckets)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("hgrm: %w", err)
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
