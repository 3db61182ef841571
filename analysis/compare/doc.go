// Package compare sets hopbench runs (hoplat.hopbench.v1 reports) side by
// side, as benchstat does benchmark runs: per path and regime, each side's
// p50 round trip and added p50, the change, and "~" unless a Mann–Whitney
// U test on the kept rounds finds it and it exceeds the noise between two
// runs of one configuration (noise.go); a side with failed rounds, errors
// or an unstable path is named on its row, and runs whose machine,
// placement or workload differ are refused unless the caller allows it.
// Package present prints a Comparison; this package only computes it.
//
// It may import analysis/hop, the statistics leaf (stats), tracer/attach
// and golang.org/x/perf's benchmath.
package compare
