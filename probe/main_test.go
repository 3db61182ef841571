package probe

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain fails the package if its tests leave descriptors open or
// goroutines running: every pair's two threads must end.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "probe", Goroutines: true}))
}
