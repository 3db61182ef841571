package tracer

import (
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package if its tests leave fds open or goroutines
// running: the tracer's maps, programs, links and collector included.
func TestMain(m *testing.M) {
	check := leak.Start("tracer")
	code := m.Run()
	peer.RemoveBuilt()
	os.Exit(check.Finish(code, true))
}
