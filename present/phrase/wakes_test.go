package phrase

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestWakes(t *testing.T) {
	c := &hop.WakeCheck{
		CrossIdle:    hop.Spread{N: 40, P25: 5.1, P50: 6.2, P75: 7.9},
		ProbeCrossUS: 8.3, ProbeSameUS: 4.7, ProbeExtraUS: 3.6,
	}
	got := Wakes(c)
	for _, want := range []string{"6.2 µs onto another, idle CPU (p25 5.1, p75 7.9; 40)", "none onto the waker's own", "8.3 µs cross-CPU, 4.7 same CPU, 3.6 µs more across"} {
		if !strings.Contains(got, want) {
			t.Errorf("%q lacks %q", got, want)
		}
	}
	c.ProbeCrossUS = 0
	if strings.Contains(Wakes(c), "probe") {
		t.Errorf("without the probe's figures: %q", Wakes(c))
	}
}
