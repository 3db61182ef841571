package driver

import "github.com/hoplat/hoplat/results/hop"

// The names of what a path is made of belong to results/hop, which reports
// on paths; the driver plans and builds them under the same names.
type (
	Relay     = hop.Relay
	Transport = hop.Transport
	Path      = hop.Path
)

const (
	Direct    = hop.Direct
	Goroutine = hop.Goroutine
	Epoll     = hop.Epoll
	Splice    = hop.Splice
	Sockmap   = hop.Sockmap
	Socat     = hop.Socat
	HAProxy   = hop.HAProxy
	TCP       = hop.TCP
	UNIX      = hop.UNIX
)

// Relays is every relay hopbench knows, in the order its table lists them.
var Relays = hop.Relays

// ParseRelay reads a relay name; "direct" is accepted for Direct.
func ParseRelay(s string) (Relay, error) { return hop.ParseRelay(s) }

// ParseTransport reads "tcp" or "unix".
func ParseTransport(s string) (Transport, error) { return hop.ParseTransport(s) }

// DirectPath is the path with no relay on transport t.
func DirectPath(t Transport) Path { return hop.DirectPath(t) }

// DefaultPaths is the matrix of the default run, filtered to relays and
// client transports: both direct paths; every hoprelay engine with a TCP and
// a UNIX client leg and a TCP upstream; socat TCP->TCP and UNIX->TCP exactly
// with SocatArgs' command lines; HAProxy in mode tcp with a TCP client leg.
func DefaultPaths(relays []Relay, clients []Transport) []Path {
	var paths []Path
	for _, r := range relays {
		for _, c := range clients {
			switch {
			case r == Direct:
				paths = append(paths, DirectPath(c))
			case r == HAProxy && c != TCP:
				// HAProxy's UNIX listener works, but one row, on TCP,
				// keeps the default run short.
			case !r.Carries(c):
			default:
				paths = append(paths, Path{Relay: r, Client: c, Upstream: TCP, Hops: 1})
			}
		}
	}
	return paths
}

// ChainPaths is the matrix of a --hops sweep: for each transport, the direct
// path (hop count 0) and, for each chainable relay, chains of every non-zero
// length in hops with every leg on that transport, so that the slope of p50
// against the hop count is the cost of one more identical hop.
func ChainPaths(relays []Relay, transports []Transport, hops []int) []Path {
	var paths []Path
	for _, t := range transports {
		paths = append(paths, DirectPath(t))
		for _, r := range relays {
			if !r.Chainable() || !r.Carries(t) {
				continue
			}
			for _, n := range hops {
				if n > 0 {
					paths = append(paths, Path{Relay: r, Client: t, Upstream: t, Hops: n})
				}
			}
		}
	}
	return paths
}
