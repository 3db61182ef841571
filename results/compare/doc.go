// Package compare sets two or more hopbench runs (hoplat.hopbench.v1
// reports) side by side, as benchstat does benchmark runs: per path and
// regime, each run's p50 round trip and added p50, the change, and "~"
// unless a Mann–Whitney U test on the kept rounds finds the difference
// significant. Runs whose machine, placement or workload differ are
// refused unless the caller allows it, and the differences say why.
// Package present prints a Comparison; this package only computes it,
// from the analysis's reports (results/hop) and the statistics leaf.
//
// It may import results/hop and the statistics leaf (results/stats,
// golang.org/x/perf's benchmath).
package compare
