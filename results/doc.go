// Package results turns a load client's runs into figures: per thread
// count, the runs' tps series (package stats/series) and their merged
// latency histograms (package stats), and the reporters that print them as sysbench-like text, JSON,
// CSV and HdrHistogram .hgrm files. Measurement and presentation are kept
// apart: workers fill histograms, a Report collects them, and a reporter
// only formats a Report.
//
// The statistics themselves live in the leaf stats (histogram, medians,
// quantiles) and stats/series (series statistics, with gonum), which
// relay, pingpong, tracer and probe import without this package.
// Subpackage hop explains hopbench's paths and writes its report; plot
// draws the figures.
package results
