package cluster

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain fails the package when its tests leave file descriptors open
// or goroutines running.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "cluster", Goroutines: true}))
}
