package relay_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/leak"
	"github.com/hoplat/hoplat/internal/mariadbtest"
)

// TestMain fails the package if its tests leave file descriptors open. A
// test binary started as one of BenchmarkPeers' load processes (loadEnv)
// runs that instead.
func TestMain(m *testing.M) {
	if code, ok := runLoad(); ok {
		os.Exit(code)
	}
	check := leak.Start("relay")
	code := m.Run()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, "relay:", err)
	}
	os.Exit(check.Finish(code, false))
}
