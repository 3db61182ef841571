package sockets

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain fails the package if its tests leave file descriptors open.
//
// It first switches receive stamps on for the whole run and waits until
// they are (KeepRXStamps): the kernel switches stamping on and off from a
// work queue as the first stamping socket opens and the last closes
// (net_enable_timestamp, net_disable_timestamp), and under load that work
// can wait long enough that a test's first reads, or all of them, go
// unstamped; a test's socket closing could also turn stamps off under the
// next test after that test had already seen its first stamp.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{
		Package: "sockets",
		Hold:    func(ctx context.Context) (io.Closer, error) { return KeepRXStamps(ctx) },
	}))
}
