package stats

import (
	"slices"
	"testing"
)

func TestTwoModes(t *testing.T) {
	for _, tc := range []struct {
		in []float64
		ok bool
	}{
		{[]float64{7.7, 7.8, 7.9, 11.6, 11.9}, true},
		{[]float64{24.1, 24.2, 24.5, 33.8, 34.0, 34.2}, true},
		{[]float64{10, 10.1, 10.2, 10.3}, false},
		{[]float64{5}, false},
	} {
		s := slices.Sorted(slices.Values(tc.in))
		if _, _, ok := TwoModes(s); ok != tc.ok {
			t.Errorf("TwoModes(%v) = %v, want %v", tc.in, ok, tc.ok)
		}
	}
}
