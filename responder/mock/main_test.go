package mock

import (
	"fmt"
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
	"github.com/hoplat/hoplat/internal/mariadbtest"
)

// TestMain stops the MariaDB that the integration tests share, so the
// package starts it at most once, then fails the package if its tests
// leave file descriptors open or goroutines running.
func TestMain(m *testing.M) {
	check := leak.Start("responder/mock")
	code := m.Run()
	peer.RemoveBuilt()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(check.Finish(code, true))
}
