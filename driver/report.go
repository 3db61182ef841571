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
)

// Schema names the JSON contract of hopbench's report.
const Schema = hop.Schema
