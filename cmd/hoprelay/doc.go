// Command hoprelay is a socat-compatible relay with its own hop timing:
//
//	hoprelay [flags] LISTEN CONNECT [CONNECT...]
//
// Both addresses take hoplat's short forms (tcp:HOST:PORT, unix:/path) and
// socat's syntax, so that `hoprelay TCP4-LISTEN:4008,reuseaddr,fork,nodelay
// TCP4:127.0.0.1:3306,nodelay` works as pasted from a socat command line.
// Several CONNECT addresses (each its own argument, since socat's options
// already take the commas) put the relay in front of a cluster: each
// accepted connection goes to one, round-robin or --balance leastconn, and
// one that refuses a connect is skipped for --retry while the connection
// tries the next; --stats then lists each upstream's share ("upstreams").
// When the listener is bound it prints `listening ADDR` on stdout.
// SIGINT/SIGTERM stop it: live connections may finish for --grace, the
// rest are closed, --stats is written, and the exit status is 130 or 143,
// as socat's. Those stats are marked "partial": true, with a
// "partial_reason" naming the signal, when a connection was cut; whole
// when every connection had ended. SIGUSR1 writes --stats now, marked
// partial, since connections still live go on counting.
// The stats' config.listen names the address bound, with the kernel's
// port for port 0 (tcp4-listen:43567,bind=127.0.0.1).
package main
