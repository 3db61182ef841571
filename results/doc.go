// Package results turns a load client's runs into figures: per thread
// count, the runs' tps series (package stats/series) and their merged
// latency histograms (package stats), in a Report, and the
// hoplat.pingpong.v1 document's types a driver reads back. Measurement and
// presentation are kept apart: workers fill histograms, a Report collects
// them, and package present/load prints it (present/hgrm the .hgrm files).
//
// The statistics themselves live in the leaf stats (histogram, medians,
// quantiles) and stats/series (series statistics, with gonum), which
// relay, pingpong, tracer and probe import without this package.
// Subpackages hop and compare are the analysis of hopbench's runs.
package results
