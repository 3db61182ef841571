package mysql

import (
	"os"
	"testing"

	"github.com/hoplat/hoplat/pingpong/mysql/mysqltest"
)

// TestMain stops the MariaDB that the integration tests share, so the
// package starts it at most once, then fails the package if its tests
// leave file descriptors open or goroutines running.
func TestMain(m *testing.M) { os.Exit(mysqltest.Main(m, "pingpong/mysql")) }
