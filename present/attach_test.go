package present

import (
	"bytes"
	"testing"

	"github.com/hoplat/hoplat/internal/golden"
	"github.com/hoplat/hoplat/tracer/attach"
)

// attachReport is a session's report with every part the text prints:
// a direction with chunks and one without, more PIDs than the head line
// names, a duty under 100% and the tracer's own CPUs.
func attachReport() *attach.Report {
	return &attach.Report{Schema: attach.Schema,
		Target:    attach.TargetReport{PIDs: []int{101, 102, 103, 104, 105, 106, 107, 108, 109, 110}, Comm: "haproxy", Threads: 4},
		DurationS: 30, Connections: 16,
		Directions: []attach.DirectionReport{
			{Name: "to_upstream", Chunks: 1200, Bytes: 48000,
				ResidenceUs: attach.ResidenceUs{P50: 12.5, P99: 40.25, P999: 90.5, Mean: 14.75},
				SplitUs:     attach.SplitUs{Blocked: 2.5, Runnable: 3.25, OnCPU: 8, Softirq: 1}},
			{Name: "to_client", Chunks: 0},
		},
		Tracer: attach.TracerReport{Events: 9000, Lost: 3, PerEventNs: 250.4, FloorPct: 4.25, TracedS: 3, DutyPct: 10, CPUs: "2-3"},
		Note:   "a note"}
}

func TestWriteAttach(t *testing.T) {
	r := attachReport()
	var b bytes.Buffer
	if err := WriteAttach(&b, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "attach.txt", b.Bytes())
	// At full duty the sampling line goes; one CPU is named in the singular.
	r.Tracer.CPUs, r.Tracer.DutyPct, r.Note, r.Target.PIDs = "1", 100, "", []int{7}
	b.Reset()
	if err := WriteAttach(&b, r); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "attach_full_duty.txt", b.Bytes())
}

func TestSplitBarFillsItsWidth(t *testing.T) {
	for _, s := range []attach.SplitUs{
		{Blocked: 2.5, Runnable: 3.25, OnCPU: 8, Softirq: 1},
		{Blocked: 1, Runnable: 1, OnCPU: 1},
		{OnCPU: 7},
		{Blocked: 0.001, Softirq: 100},
	} {
		if b := splitBar(s); len(b) != splitBarWidth {
			t.Errorf("%+v: bar %q is %d wide, want %d", s, b, len(b), splitBarWidth)
		}
	}
	if b := splitBar(attach.SplitUs{}); b != "" {
		t.Errorf("an empty split draws %q, want nothing", b)
	}
}
