package mysql

import (
	"fmt"
	"os"
	"testing"

	"github.com/hoplat/hoplat/internal/mariadbtest"
)

// TestMain stops the MariaDB that the integration tests share, so the
// package starts it at most once.
func TestMain(m *testing.M) {
	code := m.Run()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		code = 1
	}
	os.Exit(code)
}
