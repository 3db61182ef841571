package phrase

import (
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestUs(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want string
	}{
		{0, "0.0"}, {12.34, "12.3"}, {99.94, "99.9"}, {99.96, "100.0"}, {100, "100"},
		{1234.5, "1234"}, {-5.25, "-5.2"}, {-250.4, "-250"},
	} {
		if got := Us(c.v); got != c.want {
			t.Errorf("Us(%v) = %q, want %q", c.v, got, c.want)
		}
		// A name that carries a figure (a stage, a comparison row's sweep
		// point) is written by hop.Us; it must read as the sentences do.
		if got := hop.Us(c.v); got != c.want {
			t.Errorf("hop.Us(%v) = %q, want %q, as Us writes it", c.v, got, c.want)
		}
	}
}

func TestDelta(t *testing.T) {
	if got := Delta(94.12, true); got != "+94.1%" {
		t.Errorf("significant: %q", got)
	}
	if got := Delta(-3.25, true); got != "-3.2%" {
		t.Errorf("negative: %q", got)
	}
	if got := Delta(94.12, false); got != "~" {
		t.Errorf("not significant: %q", got)
	}
}
