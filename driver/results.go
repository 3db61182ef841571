package driver

import "github.com/hoplat/hoplat/analysis/hop"

// CellRounds is every round of one cell in one stage, in round order: the
// hop.Series analysis/hop analyses (the one Series: rounds of one path at
// one setting), measured with the stage and cell that say what was run.
// The embedded Setting and Path are filled from Stage and Cell by Analyze.
type CellRounds struct {
	Stage Stage
	Cell  Cell
	hop.Series
}

// Analyze hands the measured series to analysis/hop, which turns them into
// the report's paths and, when hops is set, chain fits. discard is the
// number of leading warm-up rounds.
func Analyze(all []CellRounds, discard int, hops []int) ([]hop.PathResult, []hop.Chain) {
	in := make([]hop.Series, len(all))
	for i, s := range all {
		in[i] = s.Series
		in[i].Setting = hop.Setting{ServiceTime: s.Stage.ServiceTime, Size: s.Stage.Size, Rows: s.Stage.Rows, Threads: s.Cell.Threads, Regime: s.Stage.Regime}
		in[i].Path = s.Cell.Path
	}
	return hop.Analyze(in, discard, len(hops) > 0)
}
