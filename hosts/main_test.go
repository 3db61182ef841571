package hosts

import (
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain runs the test binary as a helper when asked (see
// helper_linux_test.go), and otherwise the tests, failing the package when
// they leave file descriptors open or goroutines running.
func TestMain(m *testing.M) {
	if code, ok := runHelper(); ok {
		os.Exit(code)
	}
	check := leak.Start("hosts")
	code := m.Run()
	peer.RemoveBuilt()
	os.Exit(check.Finish(code, true))
}
