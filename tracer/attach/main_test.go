package attach

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain runs the relay of known cost when asked to (relayEnv), and
// otherwise fails the package if its tests leave fds or goroutines.
func TestMain(m *testing.M) {
	if spec := os.Getenv(relayEnv); spec != "" {
		relayMain(spec)
		return
	}
	os.Exit(testmain.Run(m, testmain.Config{Package: "attach", Goroutines: true}))
}
