package phrase

import (
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/probe/machine"
)

func TestSplitNote(t *testing.T) {
	for _, c := range []struct {
		n    hop.SplitNote
		want string
	}{
		{hop.SplitNote{NotSplit: true, TracedUs: -12.5},
			"the traced hop (-12.5 µs) has no part that grew over its baseline's: not split"},
		{hop.SplitNote{TracedUs: 42},
			"relay code as traced, the rest the traced shares of the untraced added p50 (the traced hop: 42.0 µs)"},
		{hop.SplitNote{TracedUs: 1087, GrewUs: 1397, SavedUs: 310, Savings: []hop.Saving{{Part: "wake-ups", Us: 310}, {Part: "endpoints", Us: 0.25}},
			RelayOverUs: 400, TracedRatio: 3.62, Untrusted: &hop.OutsideBand{Pct: 31.25, Lo: -10, Hi: 18.5, RecordsPct: 3.5, Twice: true}},
			"relay code as traced, the rest the traced shares of the untraced added p50 (the traced hop: 1087 µs, " +
				"1397 µs of parts that grew less 310 µs the path spent less of than its baseline: wake-ups 310, endpoints 0.2); " +
				"the relays' traced time (400 µs) is more than the untraced hop; " +
				"the traced hop is 3.6× the untraced one, so its shares may not hold untraced; " +
				"the split is not trusted: overhead +31.2% outside [-10%, 18.5%] (spread, no floor measured, records 3.5%): the traced round did not see the untraced rounds' machine, twice"},
	} {
		if got := SplitNote(&c.n); got != c.want {
			t.Errorf("SplitNote(%+v)\n got %q\nwant %q", c.n, got, c.want)
		}
	}
}

func TestFillKeepsReadNotes(t *testing.T) {
	d := &hop.Decomposition{Method: "trace", Note: "as read back"}
	rep := &hop.Report{Paths: []hop.PathResult{{Decomposition: d}}}
	Fill(rep)
	if d.Note != "as read back" {
		t.Errorf("a note read from JSON was rewritten: %q", d.Note)
	}
	d.Split = &hop.SplitNote{NotSplit: true, TracedUs: 3}
	Fill(rep)
	Fill(rep)
	if want := SplitNote(d.Split); d.Note != want {
		t.Errorf("note %q, want %q", d.Note, want)
	}
}

func TestMachineNoise(t *testing.T) {
	rep := &hop.Report{Paths: []hop.PathResult{{Noisy: &hop.MachineNoise{Flagged: 5, Paths: 12}}, {}}}
	Fill(rep)
	if got, want := rep.Paths[0].MachineNoise, "5 of the run's 12 paths' rounds spread so: likely the machine's noise, not this path's"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if rep.Paths[1].MachineNoise != "" {
		t.Errorf("a path of its own spread: %q", rep.Paths[1].MachineNoise)
	}
}

func TestOutsideBand(t *testing.T) {
	floor := 2.25
	b := &hop.OutsideBand{Pct: -7.5, Lo: -5, Hi: 9.8, Holder: true, FloorPct: &floor, RecordsPct: 2.6}
	want := "overhead -7.5% outside [-5%, 9.8%] (packed, floor 2.2%, records 2.6%): the traced round did not see the untraced rounds' machine"
	if got := OutsideBand(b); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	rep := &hop.Report{Paths: []hop.PathResult{{Trace: &hop.Trace{Untrusted: &hop.OutsideBand{Pct: 40, Lo: -10, Hi: 12, Twice: true}}}}}
	Fill(rep)
	if got, want := rep.Paths[0].Trace.NotTrusted, "overhead +40.0% outside [-10%, 12.0%] (spread, no floor measured, records 0.0%): the traced round did not see the untraced rounds' machine, twice"; got != want {
		t.Errorf("not_trusted %q, want %q", got, want)
	}
}

func TestFloorNote(t *testing.T) {
	rep := &hop.Report{Tracer: &hop.TracerInfo{On: true, FloorFailed: &hop.FloorFailed{Failed: 3, Rounds: 10}}}
	Fill(rep)
	if got, want := rep.Tracer.FloorNote, "tracer floor: 3 of its 10 rounds failed"; got != want {
		t.Errorf("floor_note %q, want %q", got, want)
	}
	rep = &hop.Report{Tracer: &hop.TracerInfo{On: true, FloorNote: "tracer floor: the run was interrupted"}}
	Fill(rep)
	if got := rep.Tracer.FloorNote; got != "tracer floor: the run was interrupted" {
		t.Errorf("a note of its own rewritten: %q", got)
	}
}

// The probe hands over why it measured no cross-CPU figure; Fill words it
// into the machine's cross_cpu_skipped, and leaves a read-back one alone.
func TestFillOneCPU(t *testing.T) {
	m := &machine.Machine{CrossSkip: &machine.OneCPU{CPU: 1}}
	rep := &hop.Report{Machine: m}
	Fill(rep)
	if want := "this process may run on CPU 1 only"; m.CrossCPUSkipped != want {
		t.Errorf("cross_cpu_skipped %q, want %q", m.CrossCPUSkipped, want)
	}
	m.CrossSkip = &machine.OneCPU{Asked: true}
	Fill(rep)
	if want := "one CPU asked for"; m.CrossCPUSkipped != want {
		t.Errorf("cross_cpu_skipped %q, want %q", m.CrossCPUSkipped, want)
	}
	read := &machine.Machine{CrossCPUSkipped: "as read back"}
	Fill(&hop.Report{Machine: read})
	if read.CrossCPUSkipped != "as read back" {
		t.Errorf("a reason read from JSON was rewritten: %q", read.CrossCPUSkipped)
	}
}
