package main

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
)

// TestMain removes the binaries the tests built (peer.Hoplat). The runs
// keep no history unless a test asks (--history): each would be judged
// against the others, and the user's own runs against the tests'.
func TestMain(m *testing.M) {
	os.Setenv(HistoryEnv, "")
	code := m.Run()
	peer.RemoveBuilt()
	os.Exit(code)
}
