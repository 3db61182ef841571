package sockets

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/leak"
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	keeper, err := KeepRXStamps(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sockets:", err)
		os.Exit(1)
	}
	check := leak.Start("sockets")
	code := check.Finish(m.Run(), false)
	keeper.Close()
	os.Exit(code)
}
