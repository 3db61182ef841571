package main

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/peer"
)

// TestMain removes the binaries the tests built (peer.Hoplat).
func TestMain(m *testing.M) {
	code := m.Run()
	peer.RemoveBuilt()
	os.Exit(code)
}
