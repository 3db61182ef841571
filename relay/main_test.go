package relay_test

import (
	"fmt"
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/relay"
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
	check := leak.Start("relay")
	code := m.Run()
	peer.RemoveBuilt()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
	}
	os.Exit(check.Finish(code, false))
}
