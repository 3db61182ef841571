package load

import (
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/pingpong/report/reporttest"
)

// synthReport is the synthetic, deterministic pingpong run every
// reporter's golden test shares: the same bytes on every machine.
func synthReport() report.Report { return reporttest.Report() }
