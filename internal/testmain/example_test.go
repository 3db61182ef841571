package testmain_test

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// A package's TestMain runs its tests through Run and exits with the code.
func Example() {
	var m *testing.M // the one TestMain receives
	if m != nil {
		os.Exit(testmain.Run(m, testmain.Config{Package: "mypkg", Goroutines: true}))
	}
	// Output:
}
