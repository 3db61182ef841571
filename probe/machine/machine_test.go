package machine

import "testing"

func TestNewFigure(t *testing.T) {
	// The cross-CPU wake-up of a 2-vCPU guest with cpuidle menu: minutes
	// apart, trials land at about 7.8 or at about 11.8 µs.
	bimodal := []float64{11.56, 7.85, 11.98, 7.72, 7.93, 11.7, 7.8, 7.9}
	f := NewFigure("pipe cross-cpu", "0,1", bimodal, 8000)
	if f.MinUS != 7.72 || f.MaxUS != 11.98 {
		t.Errorf("min/max %v %v", f.MinUS, f.MaxUS)
	}
	if len(f.ModesUS) != 2 || f.ModesUS[0] < 7.7 || f.ModesUS[0] > 8 || f.ModesUS[1] < 11.5 || f.ModesUS[1] > 12 {
		t.Errorf("modes %v, want about 7.85 and 11.7", f.ModesUS)
	}
	if !(f.P25US <= f.MedianUS && f.MedianUS <= f.P75US) {
		t.Errorf("quartiles %v %v %v out of order", f.P25US, f.MedianUS, f.P75US)
	}

	// One far trial is an outlier, not a second mode.
	if g := NewFigure("x", "0", []float64{23.5, 23.6, 24.1, 24.2, 24.4, 34.0}, 0); g.ModesUS != nil {
		t.Errorf("one outlier read as modes %v", g.ModesUS)
	}
	// Scatter is not two modes.
	scatter := []float64{4.4, 4.6, 4.9, 4.5, 4.7, 4.8, 4.6}
	if g := NewFigure("pipe same-cpu", "0", scatter, 7000); g.ModesUS != nil {
		t.Errorf("scatter %v read as modes %v", scatter, g.ModesUS)
	}
	if g := NewFigure("x", "0", []float64{1, 2, 3, 4, 5}, 0); g.MedianUS != 3 || g.P25US != 2 || g.P75US != 4 {
		t.Errorf("quartiles of 1..5: %v %v %v", g.P25US, g.MedianUS, g.P75US)
	}
	if g := NewFigure("x", "0", nil, 0); g.MedianUS != 0 || g.ModesUS != nil {
		t.Errorf("no rounds: %+v", g)
	}
}
