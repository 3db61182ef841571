// Package stats is hoplat's statistics leaf: the one latency Histogram
// (HdrHistogram, recorded without allocation), its reading in microseconds
// (Latency), and the one Median, interpolated Quantile and nearest Rank
// that every room uses, with the test for values that fall in two groups.
// It imports hdrhistogram and the standard library only, so that hoprelay
// links nothing beyond its histogram; the statistics of a series of runs
// (mean, confidence intervals, outliers, line fits) are in stats/series.
package stats
