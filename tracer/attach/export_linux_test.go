package attach

import (
	"testing"
	"time"
)

// KnownCostReport is the report of attaching to the relay of known cost
// (relayMain: mode spin or sleep, cost before each request is forwarded)
// for d in windows of w, every chunk traced, for the package's external
// tests.
func KnownCostReport(t *testing.T, mode string, cost, d, w time.Duration) *Report {
	t.Helper()
	requireTracer(t)
	return measureDuty(t, mode, cost, d, Config{Window: w}).report
}
