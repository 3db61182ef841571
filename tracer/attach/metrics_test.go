package attach

import (
	"math"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// TestMetricsSeries checks what a scraper gets: one series per process
// and direction, labelled comm, pid and the user's labels, native buckets
// no wider than the factor, classic bounds no wider than 10% from 2 µs to
// 10 ms, and the split's parts summing to the residences' sum.
func TestMetricsSeries(t *testing.T) {
	reg := prometheus.NewPedanticRegistry()
	m, err := NewMetrics(reg, map[string]string{"instance": "lb1", "version": "2.6"})
	if err != nil {
		t.Fatal(err)
	}
	pid := os.Getpid()
	for i := range 1000 {
		d := time.Duration(2000 + 7*i)
		m.Observe(Chunk{Direction: ToUpstream, Arrival: 0, Sent: uint64(d), Pid: pid,
			Split: Split{Blocked: d / 4, Runnable: d / 4, OnCPU: d / 4, Softirq: d - 3*(d/4)}})
	}
	m.Observe(Chunk{Direction: ToClient, Arrival: 0, Sent: 5000, Pid: pid, Split: Split{OnCPU: 5000}})
	fams, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		got[f.GetName()] = f
	}
	res := got["hoplat_proxy_residence_seconds"]
	if res == nil || len(res.Metric) != 2 {
		t.Fatalf("residence: %v, want two series (one per direction)", res)
	}
	want := map[string]string{"comm": comm(pid), "pid": strconv.Itoa(pid), "instance": "lb1", "version": "2.6"}
	for _, s := range res.Metric {
		labels := map[string]string{}
		for _, l := range s.Label {
			labels[l.GetName()] = l.GetValue()
		}
		for k, v := range want {
			if labels[k] != v {
				t.Errorf("series %v: %s=%q, want %q", labels, k, labels[k], v)
			}
		}
		h := s.Histogram
		if h.GetSchema() < 4 || (h.GetPositiveSpan() == nil && h.GetZeroCount() == 0) {
			t.Errorf("%s: native schema %d, spans %v: want schema 4 or finer (factor %v), buckets",
				labels["direction"], h.GetSchema(), h.GetPositiveSpan(), NativeBucketFactor)
		}
		if factor := math.Pow(2, math.Pow(2, -float64(h.GetSchema()))); factor > 1.1 {
			t.Errorf("native bucket factor %v, want at most 1.1", factor)
		}
	}
	prev := 0.0
	for _, b := range ClassicBuckets {
		if prev >= 2e-6 && prev < 10e-3 && b/prev > 1.1 {
			t.Errorf("classic bucket %g..%g is %.0f%% wide, want at most 10%%", prev, b, 100*(b/prev-1))
		}
		prev = b
	}
	if last := ClassicBuckets[len(ClassicBuckets)-1]; last < 10e-3 {
		t.Errorf("classic buckets end at %g s, want 10 ms or beyond", last)
	}
	split := got["hoplat_proxy_split_seconds_total"]
	if split == nil || len(split.Metric) != 8 {
		t.Fatalf("split: %v, want 8 series (4 parts, 2 directions)", split)
	}
	sums := map[string]float64{}
	for _, s := range split.Metric {
		for _, l := range s.Label {
			if l.GetName() == "direction" {
				sums[l.GetValue()] += s.Counter.GetValue()
			}
		}
	}
	for _, s := range res.Metric {
		for _, l := range s.Label {
			if l.GetName() == "direction" {
				if d := sums[l.GetValue()] - s.Histogram.GetSampleSum(); math.Abs(d) > 1e-9 {
					t.Errorf("%s: split sums to %g, residences to %g", l.GetValue(), sums[l.GetValue()], s.Histogram.GetSampleSum())
				}
			}
		}
	}
}

func TestMetricsLabelRefused(t *testing.T) {
	for _, k := range []string{"pid", "comm", "direction", "part", "1x", "a-b", "__x", ""} {
		if _, err := NewMetrics(prometheus.NewRegistry(), map[string]string{k: "v"}); err == nil {
			t.Errorf("label %q accepted", k)
		}
	}
}

// TestMetricsObserveAllocs: a chunk of a series seen before formats no
// label and allocates nothing.
func TestMetricsObserveAllocs(t *testing.T) {
	m, err := NewMetrics(prometheus.NewRegistry(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c := Chunk{Direction: ToClient, Sent: 3000, Pid: os.Getpid(), Split: Split{OnCPU: 3000}}
	m.Observe(c)
	if n := testing.AllocsPerRun(1000, func() { m.Observe(c) }); n != 0 {
		t.Errorf("Observe allocates %v times per chunk, want 0", n)
	}
}
