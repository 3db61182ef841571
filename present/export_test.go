package present

import (
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
)

// synthetic and sweep are hoptest's fixed reports finished as the driver
// finishes a run's: with their verdicts said.
func synthetic() *hop.Report { return said(hoptest.Synthetic()) }

func sweepReport() *hop.Report { return said(hoptest.Sweep()) }

func said(r *hop.Report) *hop.Report {
	r.Verdicts = Verdicts(r)
	return r
}

// Synthetic and Sweep hand them to the external tests.
var (
	Synthetic = synthetic
	Sweep     = sweepReport
)
