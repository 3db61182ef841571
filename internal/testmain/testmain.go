package testmain

import (
	"context"
	"fmt"
	"io"
	"os"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/leak"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/internal/peer"
)

// Config says what one package's run is checked for and holds. The zero
// value (but for Package) fails the package on file descriptors left open.
type Config struct {
	// Package names the package in what a failed check prints.
	Package string
	// Goroutines also fails the package on goroutines left running.
	Goroutines bool
	// Unchecked leaves fds and goroutines uncounted: the commands' tests,
	// which run whole programs in the test process and as children.
	Unchecked bool
	// Hold, when set, opens what the whole run needs held before the count
	// begins, and Run closes it after the check. The packages that time
	// received packets pass sockets.KeepRXStamps: the kernel switches
	// stamping on late for the first socket that asks and off as the last
	// one closes, so a loaded machine's test could read its first packets,
	// or all of them, unstamped.
	Hold func(context.Context) (io.Closer, error)
}

// holdWait bounds how long Run waits for Hold.
const holdWait = 30 * time.Second

// Run runs m's tests and returns the exit code for os.Exit. Once they
// have run it removes the binaries peer.Hoplat built (so a plain go test
// leaves no hoplat-bin-* directory), stops the MariaDB mariadbtest.Shared
// started (so a package starts it at most once), and fails the package if
// either fails or, unless c.Unchecked, if its tests left more fds (or
// goroutines, with c.Goroutines) than were open before them.
func Run(m *testing.M, c Config) int {
	if c.Hold != nil {
		ctx, cancel := context.WithTimeout(context.Background(), holdWait)
		k, err := c.Hold(ctx)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", c.Package, err)
			return 1
		}
		// Closed after the check: its fds were open when the count began.
		defer k.Close()
	}
	var check *leak.Check
	if !c.Unchecked {
		check = leak.Start(c.Package)
	}
	code := m.Run()
	peer.RemoveBuilt()
	if err := mariadbtest.StopShared(); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", c.Package, err)
		code = 1
	}
	if check != nil {
		code = check.Finish(code, c.Goroutines)
	}
	return code
}
