// Command hoprelay is a socat-compatible relay with its own hop timing:
//
//	hoprelay [flags] LISTEN CONNECT
//
// Both addresses take hoplat's short forms (tcp:HOST:PORT, unix:/path) and
// socat's syntax, so that `hoprelay TCP4-LISTEN:4008,reuseaddr,fork,nodelay
// TCP4:127.0.0.1:3306,nodelay` works as pasted from a socat command line.
// When the listener is bound it prints `listening ADDR` on stdout.
// SIGINT/SIGTERM stop it cleanly; SIGUSR1 writes --stats now.
package main
