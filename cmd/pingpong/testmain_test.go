package main

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/testmain"
)

// TestMain removes the binaries the tests built and stops the MariaDB the
// mysql tests share, started at most once.
func TestMain(m *testing.M) {
	os.Exit(testmain.Run(m, testmain.Config{Package: "pingpong", Unchecked: true}))
}
