package settings

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package when its tests leave file descriptors open or
// goroutines running.
func TestMain(m *testing.M) {
	check := leak.Start("settings")
	os.Exit(check.Finish(m.Run(), false))
}
