package pingpong_test

import (
	"context"
	"io"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
	"github.com/hoplat/hoplat/sockets"
)

// TestMain fails the package if its tests leave file descriptors open or
// goroutines running.
//
// It holds the stack's receive stamping on for the run: beside a busy
// loop per CPU, a stamped client's whole short run could otherwise go
// unstamped (TestRXStampsJSON: 2,647 responses, none stamped).
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{
		Package: "pingpong", Goroutines: true,
		Hold: func(ctx context.Context) (io.Closer, error) { return sockets.KeepRXStamps(ctx) },
	}))
}
