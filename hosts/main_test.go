package hosts

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain runs the test binary as a helper when asked (see
// helper_linux_test.go), and otherwise the tests, failing the package when
// they leave file descriptors open or goroutines running.
func TestMain(m *testing.M) {
	if code, ok := runHelper(); ok {
		os.Exit(code)
	}
	os.Exit(testmain.Run(m, testmain.Config{Package: "hosts", Goroutines: true}))
}
