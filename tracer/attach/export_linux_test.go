package attach

import (
	"testing"
	"time"
)

// KnownCostReport is the report of attaching to the relay of known cost
// (relayMain: mode spin or sleep, cost before each request is forwarded)
// for d in windows of w, every chunk traced, for the package's external
// tests. The relay has its CPU to itself (ownCPU): what the spin costs is
// on that CPU whatever else the host runs.
func KnownCostReport(t *testing.T, mode string, cost, d, w time.Duration) *Report {
	t.Helper()
	requireTracer(t)
	return measureOn(t, mode, cost, d, Config{Window: w}, true).report
}
