package driver

import (
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"path/filepath"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
)

// TestMain runs the stand-in components when the test binary is started
// under their names (see fakes_test.go), and otherwise the tests, failing
// the package if they leave file descriptors open.
func TestMain(m *testing.M) {
	switch filepath.Base(os.Args[0]) {
	case "pongd":
		os.Exit(fakePongd(os.Args[1:]))
	case "hoprelay":
		os.Exit(fakeHoprelay(os.Args[1:]))
	case "pingpong":
		os.Exit(fakePingpong(os.Args[1:]))
	}
	// Under -race every process sleeps a second at a clean exit to let
	// reports flush; the stand-ins exit dozens of times per run.
	if os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", "atexit_sleep_ms=0")
	}
	check := leak.Start("driver")
	code := m.Run()
	peer.RemoveBuilt()
	os.Exit(check.Finish(code, false))
}
