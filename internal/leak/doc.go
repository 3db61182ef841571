// Package leak lets a package's TestMain fail the package when its tests
// leave file descriptors open or goroutines running: every listener,
// connection and goroutine in hoplat has an owner that closes or waits for
// it, and this is where that is checked.
//
// It is plumbing and imports only the standard library.
package leak
