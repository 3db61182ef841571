package results

import (
	"testing"
	"time"
)

func TestSummarize(t *testing.T) {
	h := NewHistogram()
	for range 900 {
		h.Record(25_000) // 25 µs
	}
	for range 100 {
		h.Record(125_000) // 125 µs
	}
	s := Summarize(h, 2*time.Second)
	if s.Count != 1000 || s.TPS != 500 {
		t.Errorf("Count, TPS = %d, %v; want 1000, 500", s.Count, s.TPS)
	}
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"min", s.Min, 25}, {"avg", s.Avg, 35}, {"stddev", s.StdDev, 30},
		{"p50", s.P50, 25}, {"p90", s.P90, 25}, {"p95", s.P95, 125},
		{"p99", s.P99, 125}, {"p999", s.P999, 125}, {"max", s.Max, 125},
	} {
		if !near(c.got, c.want, c.want/1000+0.001) {
			t.Errorf("%s = %v µs, want %v", c.name, c.got, c.want)
		}
	}
	if z := Summarize(nil, 0); z.TPS != 0 || z.Count != 0 {
		t.Errorf("Summarize(nil, 0) = %+v, want zero", z)
	}
	if z := Summarize(h, 0); z.TPS != 0 {
		t.Errorf("zero elapsed: TPS = %v, want 0 (never +Inf)", z.TPS)
	}
}

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
		if !near(f.EventsAvg, c.avg, 1e-9) || !near(f.EventsStdDev, c.sd, 1e-9) {
			t.Errorf("FairnessOf(%v) = %+v, want %v/%v", c.events, f, c.avg, c.sd)
		}
	}
}
