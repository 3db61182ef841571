package phrase

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
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
		tr   *hop.Trace
		want string // "" for no warning
	}{
		{"disagree", &hop.Trace{View: hop.ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(23.7)}, "17.0 µs on CPU per request and the kernel counted 23.7 untraced (-28%"},
		{"agree within 10%", &hop.Trace{View: hop.ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(18.5)}, ""},
		{"more than schedstat", &hop.Trace{View: hop.ViewHolder, P50Split: short, SchedstatRelayCPUUs: count(15)}, "(+13%"},
		// The host ran slower in the untraced rounds (23.7) than in the
		// traced one, whose count (18.0) the split with its records (1.0)
		// matches exactly: no warning.
		{"same round agrees", &hop.Trace{View: hop.ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: count(23.7), SchedstatTracedRelayCPUUs: count(18)}, ""},
		// Agreeing with the untraced count (17.0) is not enough where the
		// traced round's count says otherwise.
		{"same round disagrees", &hop.Trace{View: hop.ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: count(17), SchedstatTracedRelayCPUUs: count(15)}, "18.0 µs on CPU per request and the kernel counted 15.0 over the same round (+20%"},
		{"critical path", &hop.Trace{View: hop.ViewCriticalPath, P50Split: short, SchedstatRelayCPUUs: count(23.7)}, ""},
		{"no count", &hop.Trace{View: hop.ViewHolder, P50Split: short}, ""},
		{"no trace", nil, ""},
	}
	for _, tc := range tests {
		got := SchedstatWarning(tc.tr, "epoll tcp->tcp packed")
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

// The report's warnings keep their order, a split's among the others, and
// are said from the findings each time.
func TestFillWarnings(t *testing.T) {
	counted := 23.7
	tr := &hop.Trace{View: hop.ViewHolder, P50Split: split.Split{RelayUser: 5, RelayKernel: 10, RelaySoftirq: 2}, SchedstatRelayCPUUs: &counted}
	rep := &hop.Report{Paths: []hop.PathResult{{Name: "epoll tcp->tcp packed", Trace: tr}}}
	rep.Warn("probe: no CPU 1")
	rep.Warned = append(rep.Warned, hop.Warning{Split: "epoll tcp->tcp packed"})
	rep.Warn("hosts: close: broken pipe")
	Fill(rep)
	Fill(rep)
	want := []string{"probe: no CPU 1", SchedstatWarning(tr, "epoll tcp->tcp packed"), "hosts: close: broken pipe"}
	if len(rep.Warnings) != 3 || rep.Warnings[0] != want[0] || rep.Warnings[1] != want[1] || rep.Warnings[2] != want[2] || want[1] == "" {
		t.Errorf("warnings %q, want %q", rep.Warnings, want)
	}
}
