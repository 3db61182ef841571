package compare_test

import (
	"fmt"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
)

// Two runs of one direct path, the second's server 20 µs slower per
// request: the change is significant over 6 kept rounds a side. The runs
// differ in workload, so the direct path is no control and, untraced and
// not repeated, nothing measured the noise (package present prints the
// comparison as benchstat's table).
func Example() {
	runs := []compare.Run{{Name: "old.json", Report: hoptest.DirectRounds(0)}, {Name: "new.json", Report: hoptest.DirectRounds(20)}}
	c, err := compare.Compare(runs, compare.Options{AllowDifferent: true})
	if err != nil {
		panic(err)
	}
	for _, r := range c.Rows {
		fmt.Printf("%s: %.2f -> %.2f µs, %+.1f%% (significant %t), p %.3f, %d+%d rounds, noise %.0f%%\n", compare.Label(r), r.OldP50Us, r.NewP50Us,
			r.DeltaPct, r.Significant, r.PValue, r.NOld, r.NNew, r.NoisePct)
	}
	// Output:
	// direct tcp: 21.25 -> 41.25 µs, +94.1% (significant true), p 0.002, 6+6 rounds, noise 5%
}
