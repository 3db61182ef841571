package report

import (
	"math"
	"slices"
	"testing"
)

func TestFairnessOf(t *testing.T) {
	for _, c := range []struct {
		events  []int64
		avg, sd float64
	}{
		// sysbench cpu, 2 threads: "events (avg/stddev): 1084.5000/0.50".
		{[]int64{1084, 1085}, 1084.5, 0.5},
		{[]int64{10, 10, 10, 10}, 10, 0},
		{[]int64{0, 20}, 10, 10},
		{nil, 0, 0},
	} {
		f := FairnessOf(c.events)
		if math.Abs(f.EventsAvg-c.avg) > 1e-9 || math.Abs(f.EventsStdDev-c.sd) > 1e-9 {
			t.Errorf("FairnessOf(%v) = %+v, want %v/%v", c.events, f, c.avg, c.sd)
		}
	}
}

func TestErrorSamplesBounded(t *testing.T) {
	s := Step{Runs: []Run{
		{ErrorSamples: []string{"a", "b", "a", "c"}},
		{ErrorSamples: []string{"d", "e", "f", "g"}},
	}}
	if got := AnalyzeStep(s).ErrorSamples; !slices.Equal(got, []string{"a", "b", "c", "d", "e"}) {
		t.Errorf("error samples %q, want the first %d distinct", got, maxErrorSamples)
	}
}
