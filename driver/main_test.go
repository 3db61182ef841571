package driver

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
	"github.com/hoplat/hoplat/sockets"
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
	// Receive stamping held on for the run: the stack switches it on late
	// for the first socket that asks, and a loaded machine's client would
	// read its first responses unstamped.
	os.Exit(testmain.Run(m, testmain.Config{
		Package: "driver",
		Hold:    func(ctx context.Context) (io.Closer, error) { return sockets.KeepRXStamps(ctx) },
	}))
}
