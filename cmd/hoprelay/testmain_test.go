package main

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain removes the binaries the tests built (peer.Hoplat).
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "hoprelay", Unchecked: true}))
}
