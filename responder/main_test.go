package responder_test

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain fails the package if its tests leave file descriptors open or
// goroutines running.
func TestMain(m *testing.M) {
	check := leak.Start("responder")
	os.Exit(check.Finish(m.Run(), true))
}
