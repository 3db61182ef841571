package mock

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain stops the MariaDB that the integration tests share, so the
// package starts it at most once, then fails the package if its tests
// leave file descriptors open or goroutines running.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "responder/mock", Goroutines: true}))
}
