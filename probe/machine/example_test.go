package machine_test

import (
	"fmt"

	"github.com/hoplat/hoplat/probe/machine"
)

// A constant measured in eight rounds that fell in two groups: the median
// describes neither, so the figure names both modes.
func ExampleNewFigure() {
	f := machine.NewFigure("pipe cross-cpu", "0,1", []float64{7.8, 11.8, 7.9, 11.7, 7.7, 11.9, 7.8, 11.8}, 8000)
	fmt.Printf("median %.2f µs, p25 %.2f, p75 %.2f, modes %v\n", f.MedianUS, f.P25US, f.P75US, f.ModesUS)
	// Output: median 9.80 µs, p25 7.80, p75 11.80, modes [7.8 11.8]
}
