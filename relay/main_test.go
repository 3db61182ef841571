package relay_test

import (
	"context"
	"fmt"
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/leak"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// TestMain fails the package if its tests leave file descriptors open. A
// test binary started as one of BenchmarkPeers' load processes (loadEnv)
// runs that instead.
// checkSockmapEnv makes the test binary print relay.CheckSockmap's verdict
// and exit instead of running tests.
const checkSockmapEnv = "HOPLAT_RELAY_CHECK_SOCKMAP"

func TestMain(m *testing.M) {
	if code, ok := runLoad(); ok {
		os.Exit(code)
	}
	if os.Getenv(checkSockmapEnv) != "" {
		// One bpf(2) check in a process of its own, which the test that
		// starts it runs under another user: see
		// TestCheckSockmapNamesTheCapability.
		fmt.Println("check:", relay.CheckSockmap())
		os.Exit(0)
	}
	// The stack switches receive stamping on late for the first socket
	// that asks and off as the last closes (sockets.KeepRXStamps): held
	// on for the run, every TCP read a timed test's relay makes is
	// stamped, loaded machine or not.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	keeper, err := sockets.KeepRXStamps(ctx)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
		os.Exit(1)
	}
	check := leak.Start("relay")
	code := m.Run()
	peer.RemoveBuilt()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
	}
	code = check.Finish(code, false)
	keeper.Close()
	os.Exit(code)
}
