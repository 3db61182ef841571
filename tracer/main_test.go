package tracer

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain fails the package if its tests leave fds open or goroutines
// running: the tracer's maps, programs, links and collector included.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "tracer", Goroutines: true}))
}
