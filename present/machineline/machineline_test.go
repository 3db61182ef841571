package machineline

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/probe/machine"
)

// A wake-up whose rounds fell in two groups names both modes.
func TestLineSaysBimodal(t *testing.T) {
	// The cross-CPU wake-up of a 2-vCPU guest with cpuidle menu: minutes
	// apart, trials land at about 7.8 or at about 11.8 µs.
	f := machine.NewFigure("pipe cross-cpu", "0,1", []float64{11.56, 7.85, 11.98, 7.72, 7.93, 11.7, 7.8, 7.9}, 8000)
	m := machine.Machine{Figures: []machine.Figure{f}, Wake: machine.WakeUS{CrossCPU: f.MedianUS}}
	if s := Line(m); !strings.Contains(s, "cross CPU (bimodal: 7.9 and 11.7 µs)") && !strings.Contains(s, "bimodal: 7.8") {
		t.Errorf("summary %q does not say the wake-up is bimodal", s)
	}
}

// A cross-CPU figure the probe could not take is said missing, with why,
// not printed as 0.
func TestLineSaysCrossCPUNotMeasured(t *testing.T) {
	for _, tc := range []struct {
		m    machine.Machine
		want string
	}{
		// As the probe hands it over.
		{machine.Machine{CrossSkip: &machine.OneCPU{CPU: 3}}, "cross CPU not measured (this process may run on CPU 3 only)"},
		{machine.Machine{CrossSkip: &machine.OneCPU{Asked: true}}, "cross CPU not measured (one CPU asked for)"},
		// As a report's JSON gives it back: the words only.
		{machine.Machine{CrossCPUSkipped: "one CPU allowed"}, "cross CPU not measured (one CPU allowed)"},
	} {
		tc.m.Wake.SameCPU = 1.1
		if s := Line(tc.m); !strings.Contains(s, tc.want) || strings.Contains(s, "µs cross CPU") {
			t.Errorf("summary %q, want it to say %q", s, tc.want)
		}
	}
}
