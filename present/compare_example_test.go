package present_test

import (
	"os"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/results/compare"
	"github.com/hoplat/hoplat/results/hop"
)

// Two runs of one direct path, the second's server 20 µs slower per
// request: benchstat's table, the change significant over 6 kept rounds a
// side.
func ExampleWriteComparison() {
	mk := func(name string, shift float64) compare.Run {
		p := hop.PathResult{Name: "direct tcp", Relay: hop.Direct, Regime: "packed", Threads: 1}
		for i, v := range []float64{20, 21, 22, 20.5, 21.5, 22.5} {
			p.Rounds = append(p.Rounds, hop.Round{Index: i, Kept: true, P50: v + shift})
		}
		return compare.Run{Name: name, Report: &hop.Report{Schema: hop.Schema, Env: affinity.Env{Cores: 2}, Paths: []hop.PathResult{p}}}
	}
	c, err := compare.Compare([]compare.Run{mk("old.json", 0), mk("new.json", 20)}, compare.Options{})
	if err != nil {
		panic(err)
	}
	present.WriteComparison(os.Stdout, c)
	// Output:
	// p50: median of the kept rounds' p50 round trips (µs); added: the runs' added p50 (µs)
	// ~: no significant difference (Mann-Whitney U, α = 0.05); n: kept rounds old+new
	//
	// old old.json
	// new new.json
	//   path        p50 old  p50 new  change      p    n  added old  added new  change  p
	//   direct tcp     21.2     41.2  +94.1%  0.002  6+6
	// a direct path moved with nothing recorded changed: something outside the runs did (the machine's
	// load, or a server hoplat does not start), and every p50 moves with it
}
