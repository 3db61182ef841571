// Package hop explains what each hop between a client and a server costs,
// from rounds a driver measured: it pairs every path's rounds with its
// direct baseline's (so drift between rounds cancels), fits the p50 of
// relay chains against their hop count, states verdicts in sentences, and
// writes the hoplat.hopbench.v1 report as text, JSON, CSV, one .hgrm per
// path and plots. It runs nothing: the figures come in as Series of Samples.
package hop
