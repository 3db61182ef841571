package load

import (
	"github.com/hoplat/hoplat/results"
	"github.com/hoplat/hoplat/results/reporttest"
)

// synthReport is the synthetic, deterministic pingpong run every
// reporter's golden test shares: the same bytes on every machine.
func synthReport() results.Report { return reporttest.Report() }
