package reporttest_test

import (
	"fmt"

	"github.com/hoplat/hoplat/pingpong/report/reporttest"
)

// The synthetic run: a closed-loop step of one thread over twelve runs and
// an open-loop step of four.
func ExampleReport() {
	r := reporttest.Report()
	for _, s := range r.Steps {
		fmt.Println(s.Threads, len(s.Runs))
	}
	// Output:
	// 1 12
	// 4 4
}
