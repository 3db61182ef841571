package probe

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package if its tests leave descriptors open or
// goroutines running: every pair's two threads must end.
func TestMain(m *testing.M) {
	check := leak.Start("probe")
	os.Exit(check.Finish(m.Run(), true))
}
