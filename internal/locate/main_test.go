package locate_test

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain is in package locate_test because testmain imports
// internal/peer, which imports locate.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "locate", Goroutines: true}))
}
