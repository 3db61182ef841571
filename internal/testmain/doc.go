// Package testmain is every package's TestMain: it runs the tests, removes
// the binaries internal/peer built for them, stops the MariaDB
// internal/mariadbtest shares, and fails the package when its tests leave
// file descriptors open or goroutines running (internal/leak). What a
// package needs held for its whole run (receive stamping on) it passes in.
//
// It imports testing, so only tests may import it.
package testmain
