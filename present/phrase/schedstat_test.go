package phrase

import (
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/tracer/split"
)

// The warning names the path, the split's relay time and the kernel's
// count over the round it counted, and what a reader does about it; none
// where the two agree.
func TestSchedstatWarning(t *testing.T) {
	untraced, traced, agreeing := 23.7, 15.0, 17.5
	short := split.Split{RelayUser: 5, RelayKernel: 10, RelaySoftirq: 2}
	for _, c := range []struct {
		tr   *hop.Trace
		want string
	}{
		{&hop.Trace{View: hop.ViewHolder, P50Split: short, SchedstatRelayCPUUs: &untraced},
			"epoll tcp->tcp packed: the traced split gives the relay 17.0 µs on CPU per request and the kernel counted 23.7 untraced (-28%, more than 10%): " +
				"take the relay's code from the kernel's count (relay_cpu_us) for this path"},
		{&hop.Trace{View: hop.ViewHolder, RelayCPUUs: 17, RelayRecordsUs: 1, SchedstatRelayCPUUs: &untraced, SchedstatTracedRelayCPUUs: &traced},
			"epoll tcp->tcp packed: the traced split gives the relay 18.0 µs on CPU per request and the kernel counted 15.0 over the same round (+20%, more than 10%): " +
				"take the relay's code from the kernel's count (relay_cpu_us) for this path"},
		{&hop.Trace{View: hop.ViewHolder, P50Split: short, SchedstatRelayCPUUs: &agreeing}, ""},
		{nil, ""},
	} {
		if got := SchedstatWarning(c.tr, "epoll tcp->tcp packed"); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
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
