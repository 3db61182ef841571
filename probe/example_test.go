package probe_test

import (
	"context"
	"fmt"
	"time"

	"github.com/hoplat/hoplat/probe"
)

// A short probe gives the constants a hop is explained with; a figure's
// spread over rounds comes with it.
func ExampleRun() {
	m, err := probe.Run(context.Background(), probe.Options{Rounds: 3, RoundTime: 5 * time.Millisecond})
	if err != nil {
		fmt.Println(err)
		return
	}
	f := m.Figures[0]
	fmt.Println(f.Name, len(f.RoundsUS), "rounds, woken in", m.Wake.SameCPU > 0, f.MinUS <= f.MedianUS)
	// Output:
	// pipe same-cpu 3 rounds, woken in true true
}
