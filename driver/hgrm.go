package driver

import (
	"io"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// WriteHgrm writes h (nanoseconds) as HdrHistogram's percentile
// distribution text, in microseconds, with 5 ticks per half distance: the
// .hgrm file HdrHistogram's plotter reads.
func WriteHgrm(w io.Writer, h *hdrhistogram.Histogram) error {
	_, err := h.PercentilesPrint(w, 5, 1e3)
	return err
}

// Spectrum is h's percentile spectrum: percentiles (0 to 100) and the
// latency in microseconds at each, with 5 ticks per half distance. The
// maximum is placed at the percentile of the last of n values, 100(1-1/n),
// as HdrHistogram's plotter does, since 100% lies at infinity on a
// 1/(1-q) axis.
func Spectrum(h *hdrhistogram.Histogram) (pct, us []float64) {
	n := float64(h.TotalCount())
	for _, b := range h.CumulativeDistributionWithTicks(5) {
		q := b.Quantile
		if q >= 100 {
			q = 100 * (1 - 1/n)
		}
		if len(pct) > 0 && q <= pct[len(pct)-1] {
			continue
		}
		pct = append(pct, q)
		us = append(us, float64(b.ValueAt)/1e3)
	}
	return pct, us
}

// FileName is a file name for r among all: its path name with every
// character a shell or file system dislikes replaced, then its thread
// count, and its service time, size and rows where those vary among all.
func FileName(r PathResult, all []PathResult) string {
	name := strings.Map(func(c rune) rune {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '.':
			return c
		}
		return '_'
	}, strings.ReplaceAll(r.Name, "->", "-to-"))
	v := sweeps(all)
	var b strings.Builder
	b.WriteString(name)
	b.WriteString("_t" + strconv.Itoa(r.Threads))
	if v.service {
		b.WriteString("_svc" + strings.ReplaceAll(strconv.FormatFloat(r.ServiceTimeUs, 'g', -1, 64), ".", "p") + "us")
	}
	if v.size {
		b.WriteString("_size" + strconv.Itoa(r.Size))
	}
	if v.rows {
		b.WriteString("_rows" + strconv.Itoa(r.Rows))
	}
	return b.String()
}
