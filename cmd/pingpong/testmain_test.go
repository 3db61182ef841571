package main

import (
	"fmt"
	"github.com/hoplat/hoplat/internal/peer"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/mariadbtest"
)

// TestMain stops the MariaDB the mysql tests share, started at most once.
func TestMain(m *testing.M) {
	code := m.Run()
	peer.RemoveBuilt()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
