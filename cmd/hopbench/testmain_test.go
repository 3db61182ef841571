package main

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain removes the binaries the tests built (peer.Hoplat). The runs
// keep no history unless a test asks (--history): each would be judged
// against the others, and the user's own runs against the tests'.
//
// With HOPLAT_COST_RELAY set, the binary is not a test run but the relay
// of known cost a test starts as a --proxy (costRelay).
func TestMain(m *testing.M) {
	if cost := os.Getenv(costRelayEnv); cost != "" {
		costRelay(cost, os.Args[1:])
		return
	}
	os.Setenv(HistoryEnv, "")
	os.Exit(testmain.Run(m, testmain.Config{Package: "hopbench", Unchecked: true}))
}
