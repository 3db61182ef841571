// Package plot draws hoplat's figures with gonum.org/v1/plot: a latency
// percentile spectrum per path (the log-scaled percentile axis
// HdrHistogram's plotter uses), added latency per path with confidence
// bars, curves such as throughput against threads, and chain fits. It takes
// plain numbers, not reports, so any reporter can draw with it.
//
// It imports gonum plot only, none of hoplat's rooms.
package plot
