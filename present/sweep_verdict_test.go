package present

import (
	"slices"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

// A sweep's verdicts name the thread counts whose instances saw errors or
// failed runs, and none where all ran clean.
func TestSweepVerdicts(t *testing.T) {
	rep := &hop.Report{Sweep: &hop.Sweep{Rows: []hop.SweepRow{
		{Threads: 1, Instances: []hop.SweepInstance{{}}},
		{Threads: 8, Errors: 3},
		{Threads: 16, Instances: []hop.SweepInstance{{Failed: "run 2: exit status 1"}}},
	}}}
	want := []string{"threads 8: 3 errors or failed runs: the sum is suspect", "threads 16: 0 errors or failed runs: the sum is suspect"}
	if got := Verdicts(rep); !slices.Equal(got, want) {
		t.Errorf("verdicts %q, want %q", got, want)
	}
	rep.Sweep.Rows = rep.Sweep.Rows[:1]
	if got := Verdicts(rep); got == nil || len(got) != 0 {
		t.Errorf("clean sweep: verdicts %#v, want none (an empty list)", got)
	}
}
