package settings

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain fails the package when its tests leave file descriptors open.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "settings"}))
}
