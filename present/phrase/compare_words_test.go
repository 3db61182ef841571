package phrase

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/compare"
)

// NoiseMethod names each source of noise a comparison used, and none for
// two paths of one run.
func TestNoiseMethod(t *testing.T) {
	for _, c := range []struct {
		m        compare.NoiseMethod
		has, not []string
	}{
		{compare.NoiseMethod{Within: true}, []string{"none: both sides are paths of one run"}, []string{"largest"}},
		{compare.NoiseMethod{Repeated: true, Controls: true},
			[]string{"repeated runs", "the control", "outside relay", "pace"}, []string{"no control)"}},
		{compare.NoiseMethod{}, []string{"the runs differ, so their direct paths are no control", "pace"}, []string{"repeated runs"}},
	} {
		s := NoiseMethod(c.m)
		for _, w := range c.has {
			if !strings.Contains(s, w) {
				t.Errorf("%+v: %q lacks %q", c.m, s, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(s, w) {
				t.Errorf("%+v: %q says %q", c.m, s, w)
			}
		}
	}
}

// FillComparison and FillAttachComparison word what analysis left typed,
// and keep the words of a comparison read back from JSON.
func TestFillComparisonWords(t *testing.T) {
	c := &compare.Comparison{Method: &compare.NoiseMethod{Within: true}}
	FillComparison(c)
	if c.Test != CompareTest || c.Noise != NoiseMethod(compare.NoiseMethod{Within: true}) {
		t.Errorf("filled: test %q, noise %q", c.Test, c.Noise)
	}
	read := &compare.Comparison{Test: "from JSON", Noise: "kept"}
	FillComparison(read)
	if read.Test != "from JSON" || read.Noise != "kept" {
		t.Errorf("read back: test %q, noise %q", read.Test, read.Noise)
	}
	a := &compare.AttachComparison{}
	FillAttachComparison(a)
	if !strings.Contains(a.Test, "Mann-Whitney U") || !strings.Contains(a.Noise, fmt.Sprintf("exceeds %d%% of the old side's hop", compare.AttachNoisePct)) {
		t.Errorf("attach: test %q, noise %q", a.Test, a.Noise)
	}
}
