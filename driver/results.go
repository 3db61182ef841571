package driver

import "github.com/hoplat/hoplat/results/hop"

// A run's report and the samples it is made of are results/hop's: the
// driver collects them, hop explains and writes them.
type (
	Report       = hop.Report
	ReportConfig = hop.ReportConfig
	PathResult   = hop.PathResult
	Chain        = hop.Chain
	Skip         = hop.Skip
	Sample       = hop.Sample
	Round        = hop.Round
)

// Schema names the JSON contract of hopbench's report.
const Schema = hop.Schema

// Series is every round of one cell in one stage, in round order.
type Series struct {
	Stage   Stage
	Cell    Cell
	Samples []Sample
	RelayUs *float64 // the relays' own residence per request, from --stats
	// Placement is the CPUs each component obtained.
	Placement map[string]string
	// RelayCPUUs is the CPU time the path's relays ran per request over
	// the timed rounds.
	RelayCPUUs *float64
	// Kworkers is what the per-CPU kworkers ran per request on a sockmap
	// path, over its baseline's: RelayCPUUs holds it.
	Kworkers *hop.Kworkers
	// Endpoints is the client's and the server's CPU time per request
	// over the timed rounds.
	Endpoints *hop.Endpoints
	Connect   *hop.Connect // the connect-only series; nil without one
	// RelayWakeUs is the relays' wake-up delay per request, from the
	// kernel's receive stamps; nil where they have none.
	RelayWakeUs *float64
	// ClientWakeUs is the client's wake-up delay per response over the
	// timed rounds, from the kernel's receive stamps; nil on a UNIX client
	// leg.
	ClientWakeUs *float64
}

// Analyze hands the measured series to results/hop, which turns them into
// the report's paths and, when hops is set, chain fits. discard is the
// number of leading warm-up rounds.
func Analyze(all []Series, discard int, hops []int) ([]PathResult, []Chain) {
	in := make([]hop.Series, len(all))
	for i, s := range all {
		in[i] = hop.Series{
			Setting:      hop.Setting{ServiceTime: s.Stage.ServiceTime, Size: s.Stage.Size, Rows: s.Stage.Rows, Threads: s.Cell.Threads, Regime: s.Stage.Regime},
			Path:         s.Cell.Path,
			Samples:      s.Samples,
			RelayUs:      s.RelayUs,
			Placement:    s.Placement,
			RelayCPUUs:   s.RelayCPUUs,
			Kworkers:     s.Kworkers,
			Endpoints:    s.Endpoints,
			Connect:      s.Connect,
			RelayWakeUs:  s.RelayWakeUs,
			ClientWakeUs: s.ClientWakeUs,
		}
	}
	return hop.Analyze(in, discard, len(hops) > 0)
}
