package stats

import (
	"testing"
)

// TestSpectrum checks the plot's points against the .hgrm file's: the same
// ticks, rising, with the maximum moved off infinity to the last value's
// percentile (or dropped, when a tick already lies past it).
func TestSpectrum(t *testing.T) {
	h := NewHistogram()
	x := uint64(3)
	for range 1000 {
		x = x*6364136223846793005 + 1442695040888963407
		h.Record(20_000 + int64((x>>33)%10_000))
	}
	pct, us := h.Spectrum()
	if len(pct) < 10 || len(pct) != len(us) {
		t.Fatalf("%d percentiles, %d values", len(pct), len(us))
	}
	for i := 1; i < len(pct); i++ {
		if pct[i] <= pct[i-1] || us[i] < us[i-1] {
			t.Fatalf("point %d (%v%%, %v µs) does not rise from (%v%%, %v µs)", i, pct[i], us[i], pct[i-1], us[i-1])
		}
	}
	// 100% is at infinity on the plot's 1/(1-q) axis: no point may sit there.
	if last := pct[len(pct)-1]; last >= 100 || last < 100*(1-1/float64(h.Count())) {
		t.Errorf("last percentile %v, want the last value's, below 100", last)
	}
	if got, want := us[len(us)-1], float64(h.Max())/1e3; got > want {
		t.Errorf("last value %v µs above the maximum %v µs", got, want)
	}
	if pct, us := NewHistogram().Spectrum(); pct != nil || us != nil {
		t.Errorf("empty histogram: spectrum %v %v, want none", pct, us)
	}
}
