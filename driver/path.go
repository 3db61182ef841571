package driver

import "github.com/hoplat/hoplat/analysis/hop"

// DefaultPaths is the matrix of the default run, filtered to relays and
// client transports: both direct paths; every hoprelay engine with a TCP and
// a UNIX client leg and a TCP upstream; socat TCP->TCP and UNIX->TCP exactly
// with SocatArgs' command lines; HAProxy in mode tcp with a TCP client leg.
func DefaultPaths(relays []hop.Relay, clients []hop.Transport) []hop.Path {
	var paths []hop.Path
	for _, r := range relays {
		for _, c := range clients {
			switch {
			case r == hop.Direct:
				paths = append(paths, hop.DirectPath(c))
			case r == hop.HAProxy && c != hop.TCP:
				// HAProxy's UNIX listener works, but one row, on TCP,
				// keeps the default run short.
			case !r.Carries(c):
			default:
				paths = append(paths, hop.Path{Relay: r, Client: c, Upstream: hop.TCP, Hops: 1})
			}
		}
	}
	return paths
}

// ChainPaths is the matrix of a --hops sweep: for each transport, the direct
// path (hop count 0) and, for each chainable relay, chains of every non-zero
// length in hops with every leg on that transport, so that the slope of p50
// against the hop count is the cost of one more identical hop.
func ChainPaths(relays []hop.Relay, transports []hop.Transport, hops []int) []hop.Path {
	var paths []hop.Path
	for _, t := range transports {
		paths = append(paths, hop.DirectPath(t))
		for _, r := range relays {
			if !r.Chainable() || !r.Carries(t) {
				continue
			}
			for _, n := range hops {
				if n > 0 {
					paths = append(paths, hop.Path{Relay: r, Client: t, Upstream: t, Hops: n})
				}
			}
		}
	}
	return paths
}
