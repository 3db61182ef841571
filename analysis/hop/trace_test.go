package hop

import (
	"math"
	"testing"

	"github.com/hoplat/hoplat/tracer/split"
)

// A packed split's relay parts and the relay's schedstat time on CPU
// stand apart past 10% only where they do; where the kernel counted the
// traced round, the split (its records put back) is set against that
// round's count, not the untraced rounds'. The words are present's
// (phrase.SchedstatWarning).
func TestSchedstatGap(t *testing.T) {
	count := func(v float64) *float64 { return &v }
	// 17.0 µs of relay parts.
	short := split.Split{RelayUser: 5, RelayKernel: 10, RelaySoftirq: 2, Runnable: 6, Endpoints: 10}
	tests := []struct {
		name string
		tr   *Trace
		want SchedstatGap
		ok   bool
	}{
		{"disagree", &Trace{View: ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(23.7)}, SchedstatGap{SplitUs: 17, CountedUs: 23.7, DiffPct: 100 * (17.0 - 23.7) / 23.7}, true},
		{"agree within 10%", &Trace{View: ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(18.5)}, SchedstatGap{}, false},
		{"same round agrees", &Trace{View: ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: count(23.7), SchedstatTracedRelayCPUUs: count(18)}, SchedstatGap{}, false},
		{"same round disagrees", &Trace{View: ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: count(17), SchedstatTracedRelayCPUUs: count(15)},
			SchedstatGap{SplitUs: 18, CountedUs: 15, DiffPct: 20, SameRound: true}, true},
		{"critical path", &Trace{View: ViewCriticalPath, P50Split: short, SchedstatRelayCPUUs: count(23.7)}, SchedstatGap{}, false},
		{"no count", &Trace{View: ViewHolder, P50Split: short}, SchedstatGap{}, false},
		{"no trace", nil, SchedstatGap{}, false},
	}
	for _, tc := range tests {
		got, ok := tc.tr.SchedstatGap()
		if ok != tc.ok || math.Abs(got.SplitUs-tc.want.SplitUs) > 1e-9 || math.Abs(got.CountedUs-tc.want.CountedUs) > 1e-9 ||
			math.Abs(got.DiffPct-tc.want.DiffPct) > 1e-9 || got.SameRound != tc.want.SameRound {
			t.Errorf("%s: %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestOverheadBand(t *testing.T) {
	if lo, hi := OverheadBand(true, 3, 0); lo != -5 || hi != 8 {
		t.Errorf("packed, floor 3%%: [%v, %v], want [-5, 8]", lo, hi)
	}
	if lo, hi := OverheadBand(false, 3, 0); lo != -10 || hi != 13 {
		t.Errorf("spread, floor 3%%: [%v, %v], want [-10, 13]", lo, hi)
	}
}

// Analyze sets the relay's schedstat count beside the split, per
// statement where an event is several, and none on a direct path.
func TestTraceSchedstat(t *testing.T) {
	cpu := 48.0
	relay := pathSeries(epollTCP, 1, 25, 25, 25)
	relay.RelayCPUUs, relay.Trace = &cpu, &Trace{StatementsPerEvent: 2, TracedP50Us: 30}
	direct := pathSeries(directTCP, 1, 20, 20, 20)
	direct.RelayCPUUs, direct.Trace = &cpu, &Trace{TracedP50Us: 20}
	paths, _ := Analyze([]Series{direct, relay}, 0, false)
	for _, p := range paths {
		got := p.Trace.SchedstatRelayCPUUs
		switch {
		case p.Relay == Direct && got != nil:
			t.Errorf("direct path: schedstat %v, want none", *got)
		case p.Relay != Direct && (got == nil || *got != 24):
			t.Errorf("relay path: schedstat %v, want 24 (48 per event of 2 statements)", got)
		}
	}
}
