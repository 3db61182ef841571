package attach

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain runs the relay of known cost when asked to (relayEnv), and
// otherwise fails the package if its tests leave fds or goroutines.
func TestMain(m *testing.M) {
	if spec := os.Getenv(relayEnv); spec != "" {
		relayMain(spec)
		return
	}
	check := leak.Start("attach")
	code := m.Run()
	os.Exit(check.Finish(code, true))
}
