package probe

import (
	"context"
	"testing"

	"github.com/hoplat/hoplat/probe/machine"
)

// BenchmarkProbe runs the default probe and reports its constants, one way
// in µs, as metrics (go test -bench Probe -benchtime 1x ./probe/).
func BenchmarkProbe(b *testing.B) {
	requirePinningB(b)
	var m machine.Machine
	for b.Loop() {
		var err error
		if m, err = Run(context.Background(), Options{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(m.Wake.SameCPU, "wake-same-µs")
	if m.CrossSkip == nil {
		b.ReportMetric(m.Wake.CrossCPU, "wake-cross-µs")
		b.ReportMetric(m.WakeSocket.CrossCPU, "socketpair-cross-µs")
	}
	b.ReportMetric(m.WakeSocket.SameCPU, "socketpair-same-µs")
	if m.WakeProcessSkipped == "" {
		b.ReportMetric(m.WakeProcess.SameCPU, "wake-same-process-µs")
	}
	b.ReportMetric(m.RelayFloorUS(), "relay-floor-µs")
	b.ReportMetric(m.Leg.TCP, "leg-tcp-µs")
	b.ReportMetric(m.Leg.UNIX, "leg-unix-µs")
	b.ReportMetric(m.StealPct, "steal-%")
	b.ReportMetric(0, "ns/op") // a probe's duration is set by Options, not a result
	b.Logf("%+v", m)
}
