package present_test

import (
	"os"

	"github.com/hoplat/hoplat/analysis/compare"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
	"github.com/hoplat/hoplat/present"
)

// Two runs of one direct path, the second's server 20 µs slower per
// request: benchstat's table, the change significant over 6 kept rounds a
// side. The workloads differ, so the direct path is no control, and
// nothing else measured the noise.
func ExampleWriteComparison() {
	runs := []compare.Run{{Name: "old.json", Report: hoptest.DirectRounds(0)}, {Name: "new.json", Report: hoptest.DirectRounds(20)}}
	c, err := compare.Compare(runs, compare.Options{AllowDifferent: true})
	if err != nil {
		panic(err)
	}
	present.WriteComparison(os.Stdout, c)
	// Output:
	// the runs differ (1):
	//   workload config.service_times_us: [0] -> [20] (new.json)
	//
	// p50: median of the kept rounds' p50 round trips (µs); added: the runs' added p50 (µs)
	// ~: no significant difference (Mann-Whitney U, α = 0.05); n: kept rounds old+new
	// noise: what separates two runs of one configuration here, from the control paths (each
	// regime's direct path, socat's and HAProxy's hops, and pace) or the repeated runs of a side;
	// with one run a side 5% at least, 15% on a relay path (OLD1 OLD2 -- NEW1 NEW2 measures it);
	// a change is called only where p ≤ α and it is larger than the noise
	//
	// old old.json
	// new new.json
	//   path        p50 old  p50 new  change      p    n  noise  added old  added new  change  p
	//   direct tcp     21.2     41.2  +94.1%  0.002  6+6   5.0%
}
