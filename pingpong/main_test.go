package pingpong_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/leak"
	"github.com/hoplat/hoplat/sockets"
)

// TestMain fails the package if its tests leave file descriptors open or
// goroutines running.
//
// It first waits until the stack stamps received packets and holds it so
// for the run (sockets.KeepRXStamps): the kernel switches stamping on
// late for the first socket that asks, and off as the last one closes, so
// beside a busy loop per CPU a stamped client's whole short run could go
// unstamped (TestRXStampsJSON: 2,647 responses, none stamped).
func TestMain(m *testing.M) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	keeper, err := sockets.KeepRXStamps(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "pingpong:", err)
		os.Exit(1)
	}
	check := leak.Start("pingpong")
	code := check.Finish(m.Run(), true)
	keeper.Close()
	os.Exit(code)
}
