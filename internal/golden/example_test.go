package golden_test

import (
	"testing"

	"github.com/hoplat/hoplat/internal/golden"
)

// A report test ends by holding its bytes to testdata/report.txt.
func Example() {
	_ = func(t *testing.T, report []byte) {
		golden.Check(t, "report.txt", report)
	}
}
