package wordwrap_test

import (
	"fmt"

	"github.com/hoplat/hoplat/internal/wordwrap"
)

// A message wrapped to 24 columns, its continuation lines indented under
// its first word.
func Example() {
	for _, l := range wordwrap.Lines("hopbench: round 3 of 11 took 2.1 s, 0.4 s over", 24, "          ") {
		fmt.Printf("%q\n", l)
	}
	// Output:
	// "hopbench: round 3 of 11"
	// "          took 2.1 s,"
	// "          0.4 s over"
}
