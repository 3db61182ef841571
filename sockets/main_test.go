package sockets

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package if its tests leave file descriptors open.
func TestMain(m *testing.M) {
	check := leak.Start("sockets")
	os.Exit(check.Finish(m.Run(), false))
}
