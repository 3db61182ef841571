package relay_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
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
	// that asks and off as the last closes: held on for the run, every
	// TCP read a timed test's relay makes is stamped, loaded machine or
	// not.
	os.Exit(testmain.Run(m, testmain.Config{
		Package: "relay",
		Hold:    func(ctx context.Context) (io.Closer, error) { return sockets.KeepRXStamps(ctx) },
	}))
}
