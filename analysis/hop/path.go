package hop

import (
	"fmt"
	"strings"

	"github.com/hoplat/hoplat/roles"
)

// Relay names what stands between the client and the server on a path.
type Relay string

const (
	Direct    Relay = "none"          // the client talks to the responder itself
	Goroutine Relay = roles.Goroutine // hoprelay engines
	Epoll     Relay = roles.Epoll
	Splice    Relay = roles.Splice
	Sockmap   Relay = roles.Sockmap // the hop in the kernel: the floor for a user-space relay
	Socat     Relay = "socat"
	HAProxy   Relay = "haproxy"
	// MySQLConn and MySQLRW are hoprelay reading MySQL on its epoll
	// engine (--route conn, --route rw): beside epoll's row they show
	// what reading the protocol adds to moving bytes.
	MySQLConn Relay = "mysql-conn"
	MySQLRW   Relay = "mysql-rw"
)

// Relays is every relay hopbench knows, in the order its table lists them:
// the direct path, hoprelay's engines in roles' table order, then the
// third-party relays.
var Relays = relays()

func relays() []Relay {
	out := []Relay{Direct}
	for _, e := range roles.Engines {
		out = append(out, Relay(e))
	}
	return append(out, Socat, HAProxy, MySQLConn, MySQLRW)
}

// DefaultRelays are the relays of a run that names none: every one but the
// MySQL routers, which a run asks for by name (--paths).
var DefaultRelays = func() []Relay {
	var out []Relay
	for _, r := range Relays {
		if !r.Routes() {
			out = append(out, r)
		}
	}
	return out
}()

// Routes reports whether r is hoprelay routing MySQL (--route conn|rw).
func (r Relay) Routes() bool { return r == MySQLConn || r == MySQLRW }

// IsEngine reports whether r is one of hoprelay's own engines.
func (r Relay) IsEngine() bool { return roles.IsEngine(string(r)) }

// Carries reports whether r can relay a leg on t: the sockmap engine takes
// TCP sockets only (the kernel's af_unix sockmap support does not keep a
// stream's bytes in order; relay/doc.go says where it falls short).
func (r Relay) Carries(t Transport) bool { return r != Sockmap || t == TCP }

// ParseRelay reads a relay name; "direct" is accepted for Direct.
func ParseRelay(s string) (Relay, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "direct" {
		return Direct, nil
	}
	for _, r := range Relays {
		if string(r) == s {
			return r, nil
		}
	}
	return "", fmt.Errorf("hop: parse relay %q: want direct, %s", s, roles.OrList(Relays[1:]))
}

// Transport is the kind of socket a leg of a path uses.
type Transport string

const (
	TCP  Transport = "tcp"
	UNIX Transport = "unix"
)

// ParseTransport reads "tcp" or "unix".
func ParseTransport(s string) (Transport, error) {
	switch t := Transport(strings.ToLower(strings.TrimSpace(s))); t {
	case TCP, UNIX:
		return t, nil
	}
	return "", fmt.Errorf("hop: parse transport %q: want tcp or unix", s)
}

// Path is one way from the client to the server: through Hops relays of one
// kind, the client's leg on Client, every leg after the first relay on
// Upstream. A direct path has Hops 0 and Upstream equal to Client.
type Path struct {
	Relay    Relay
	Client   Transport
	Upstream Transport
	Hops     int
}

// Name is the label tables, JSON and plots use: "direct tcp", "epoll
// unix->tcp", "epoll tcp->tcp x3" for a chain of three.
func (p Path) Name() string {
	if p.Hops == 0 {
		return "direct " + string(p.Client)
	}
	name := fmt.Sprintf("%s %s->%s", p.Relay, p.Client, p.Upstream)
	if p.Hops > 1 {
		name += fmt.Sprintf(" x%d", p.Hops)
	}
	return name
}

// Baseline is the direct path that p's added latency is measured against:
// the one with the same client transport, since a UNIX client leg is part of
// what a path is and not part of what its relay adds.
func (p Path) Baseline() Path { return Path{Relay: Direct, Client: p.Client, Upstream: p.Client} }

// DirectPath is the path with no relay on transport t.
func DirectPath(t Transport) Path { return Path{Relay: Direct, Client: t, Upstream: t} }

// Chainable reports whether hopbench can chain r: each hop is its own
// process. HAProxy is left out because its paths share one process (one
// config, one thread), so a chain of it would measure a different thing.
func (r Relay) Chainable() bool { return r.IsEngine() || r == Socat }
