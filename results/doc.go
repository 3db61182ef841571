// Package results turns raw measurements into figures: latency histograms
// recorded without allocation on the hot path, summaries of runs and series of
// runs (mean, median, 95% confidence interval, named outliers), and the
// reporters that print them as sysbench-like text, JSON, CSV and HdrHistogram
// .hgrm files. Measurement and presentation are kept apart: workers fill
// histograms, a Report collects them, and a reporter only formats a Report.
//
// Histogram is the one histogram of hoplat: pingpong's workers, hoprelay's
// residence stats and hopbench's merged rounds all keep theirs in it, so
// they share range, precision, clamping, encoding and the .hgrm writer.
// Subpackage hop explains hopbench's paths and writes its report; plot
// draws the figures.
package results
