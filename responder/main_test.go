package responder_test

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain fails the package if its tests leave file descriptors open or
// goroutines running.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "responder", Goroutines: true}))
}
