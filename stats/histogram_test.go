package stats

import (
	"testing"
	"time"
)

// within reports whether got is within HdrHistogram's 3-digit precision of want.
func within(got, want int64) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return float64(d) <= float64(want)/1000+1
}

func TestHistogramQuantiles(t *testing.T) {
	h := NewHistogram()
	for i := int64(1); i <= 1000; i++ {
		h.Record(i * 1000) // 1 µs .. 1 ms, evenly
	}
	if h.Count() != 1000 {
		t.Fatalf("Count = %d, want 1000", h.Count())
	}
	for _, c := range []struct {
		q    float64
		want int64
	}{{0, 1000}, {50, 500_000}, {90, 900_000}, {99, 990_000}, {99.9, 999_000}, {100, 1_000_000}} {
		if got := h.Quantile(c.q); !within(got, c.want) {
			t.Errorf("Quantile(%v) = %d, want %d ±0.1%%", c.q, got, c.want)
		}
	}
	if !within(h.Min(), 1000) || !within(h.Max(), 1_000_000) {
		t.Errorf("Min, Max = %d, %d; want 1000, 1000000", h.Min(), h.Max())
	}
	if m := h.Mean(); m < 500_000 || m > 501_000 {
		t.Errorf("Mean = %v, want 500500 ±0.1%%", m)
	}
	// Uniform on 1..1000 µs: population stddev = 1000·sqrt((1000²-1)/12)/1000 ns.
	if sd := h.StdDev(); sd < 288_000 || sd > 289_000 {
		t.Errorf("StdDev = %v, want about 288675", sd)
	}
}

func TestHistogramClamps(t *testing.T) {
	h := NewHistogram()
	h.Record(int64(2 * time.Minute))
	h.Record(int64(61 * time.Second))
	h.Record(0)
	h.Record(-5)
	if h.Count() != 4 {
		t.Fatalf("Count = %d, want 4: out-of-range values must not be dropped", h.Count())
	}
	if h.Clamped() != 2 {
		t.Errorf("Clamped = %d, want 2", h.Clamped())
	}
	if !within(h.Max(), int64(60*time.Second)) {
		t.Errorf("Max = %d, want 60 s", h.Max())
	}
	if h.Min() != 1 {
		t.Errorf("Min = %d, want 1 (zero and negative clamp to 1 ns)", h.Min())
	}
}

func TestHistogramMergeReset(t *testing.T) {
	a, b := NewHistogram(), NewHistogram()
	a.Record(1000)
	b.Record(3000)
	b.Record(int64(time.Hour))
	a.Merge(b)
	a.Merge(nil)
	if a.Count() != 3 || a.Clamped() != 1 {
		t.Fatalf("after Merge: Count, Clamped = %d, %d; want 3, 1", a.Count(), a.Clamped())
	}
	if a.Min() != 1000 || !within(a.Quantile(50), 3000) {
		t.Errorf("after Merge: Min, p50 = %d, %d; want 1000, 3000", a.Min(), a.Quantile(50))
	}
	if b.Count() != 2 {
		t.Errorf("Merge changed its argument: Count = %d, want 2", b.Count())
	}
	a.Reset()
	if a.Count() != 0 || a.Clamped() != 0 || a.Min() != 0 || a.Max() != 0 || a.Quantile(99) != 0 || a.Mean() != 0 {
		t.Errorf("after Reset: %d values, %d clamped, min %d, max %d, p99 %d, mean %v; want all 0",
			a.Count(), a.Clamped(), a.Min(), a.Max(), a.Quantile(99), a.Mean())
	}
}

// The hot path: a worker records every round trip.
func TestHistogramRecordAllocs(t *testing.T) {
	h := NewHistogram()
	v := int64(0)
	if n := testing.AllocsPerRun(1000, func() {
		v += 7919
		h.Record(v)
	}); n != 0 {
		t.Errorf("Record: %v allocs per call, want 0", n)
	}
	for _, ns := range []int64{-1, 0, int64(time.Hour)} {
		if n := testing.AllocsPerRun(100, func() { h.Record(ns) }); n != 0 {
			t.Errorf("Record(%d): %v allocs per call, want 0", ns, n)
		}
	}
}

func BenchmarkRecord(b *testing.B) {
	h := NewHistogram()
	v := int64(25_000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		h.Record(v + int64(i&1023))
	}
}

func BenchmarkMerge(b *testing.B) {
	src, dst := NewHistogram(), NewHistogram()
	for i := range int64(100_000) {
		src.Record(20_000 + i%50_000)
	}
	b.ReportAllocs()
	for b.Loop() {
		dst.Merge(src)
	}
}

func BenchmarkQuantile(b *testing.B) {
	h := NewHistogram()
	for i := range int64(100_000) {
		h.Record(20_000 + i%50_000)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = h.Quantile(99)
	}
}

// FuzzRecord checks that no value is dropped or escapes the range.
func FuzzRecord(f *testing.F) {
	f.Add(int64(25_000), int64(0))
	f.Add(int64(-1), int64(1))
	f.Add(int64(1<<62), int64(1_000_000))
	f.Fuzz(func(t *testing.T, a, b int64) {
		h := NewHistogram()
		h.Record(a)
		h.Record(b)
		if h.Count() != 2 {
			t.Fatalf("Record(%d), Record(%d): count %d, want 2", a, b, h.Count())
		}
		if h.Min() < 1 || h.Max() > highestNs+highestNs/1000 {
			t.Fatalf("min %d, max %d outside 1 ns .. 60 s", h.Min(), h.Max())
		}
		wantClamped := int64(0)
		for _, v := range []int64{a, b} {
			if v > highestNs {
				wantClamped++
			}
		}
		if h.Clamped() != wantClamped {
			t.Fatalf("clamped %d, want %d", h.Clamped(), wantClamped)
		}
	})
}
