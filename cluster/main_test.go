package cluster

import (
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package when its tests leave file descriptors open
// or goroutines running.
func TestMain(m *testing.M) {
	check := leak.Start("galera")
	code := m.Run()
	peer.RemoveBuilt()
	os.Exit(check.Finish(code, true))
}
