package hop

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/tracer/split"
)

// The warning line appears where a packed split's relay parts and the
// relay's schedstat time on CPU differ by more than 10%, and only there;
// where the kernel counted the traced round, the split (its records put
// back) is set against that round's count, not the untraced rounds'.
func TestSchedstatWarning(t *testing.T) {
	count := func(v float64) *float64 { return &v }
	// 17.0 µs of relay parts.
	short := split.Split{RelayUser: 5, RelayKernel: 10, RelaySoftirq: 2, Runnable: 6, Endpoints: 10}
	tests := []struct {
		name string
		tr   *Trace
		want string // "" for no warning
	}{
		{"disagree", &Trace{View: ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(23.7)}, "17.0 µs on CPU per request and the kernel counted 23.7 untraced (-28%"},
		{"agree within 10%", &Trace{View: ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(18.5)}, ""},
		{"more than schedstat", &Trace{View: ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(15)}, "(+13%"},
		// The host ran slower in the untraced rounds (23.7) than in the
		// traced one, whose count (18.0) the split with its records (1.0)
		// matches exactly: no warning.
		{"same round agrees", &Trace{View: ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: count(23.7), SchedstatTracedRelayCPUUs: count(18)}, ""},
		// Agreeing with the untraced count (17.0) is not enough where the
		// traced round's count says otherwise.
		{"same round disagrees", &Trace{View: ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: count(17), SchedstatTracedRelayCPUUs: count(15)}, "18.0 µs on CPU per request and the kernel counted 15.0 over the same round (+20%"},
		{"critical path", &Trace{View: ViewCriticalPath, P50Split: short, SchedstatRelayCPUUs: count(23.7)}, ""},
		{"no count", &Trace{View: ViewHolder, P50Split: short}, ""},
		{"no trace", nil, ""},
	}
	for _, tc := range tests {
		got := tc.tr.SchedstatWarning("epoll tcp->tcp packed")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: warning %q, want none", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s: warning %q, want it to hold %q", tc.name, got, tc.want)
		case tc.want != "" && !strings.HasPrefix(got, "epoll tcp->tcp packed: "):
			t.Errorf("%s: warning %q does not name the path", tc.name, got)
		case tc.want != "" && !strings.HasSuffix(got, "for this path"):
			t.Errorf("%s: warning %q does not say what to do", tc.name, got)
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
