package tracer

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package if its tests leave fds open or goroutines
// running: the tracer's maps, programs, links and collector included.
func TestMain(m *testing.M) {
	check := leak.Start("tracer")
	os.Exit(check.Finish(m.Run(), true))
}
