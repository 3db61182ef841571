package proxyconf

import (
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// HopRelay is one hoprelay process as hoplat starts it: a hop of one of
// the driver's paths, a path in front of a Galera cluster included.
type HopRelay struct {
	Engine string // one of roles.Engines
	Lock   string // --lock none|conn|global; empty leaves hoprelay's default
	Stats  string // --stats FILE; empty for none
	CPUs   string // --cpus, the placement's relay CPUs (also applied at fork)
	// Route is --route conn or rw (a MySQL router, on the epoll engine),
	// logging clients in as User with Password; "" relays bytes.
	Route          string
	User, Password string
}

// Args is hoprelay's command line relaying listen to connect: to one of
// several upstreams (a cluster), round-robin, when connect lists more.
func (h HopRelay) Args(bin string, listen sockets.Addr, connect ...sockets.Addr) []string {
	argv := []string{bin, "--engine", h.Engine}
	if h.Route != "" {
		argv = append(argv, "--route", h.Route, "--user", h.User, "--password", h.Password)
	}
	if h.Lock != "" {
		argv = append(argv, "--lock", h.Lock)
	}
	if h.Stats != "" {
		argv = append(argv, "--stats", h.Stats)
	}
	// The goroutine engine has no threads of its own to pin and the
	// sockmap engine forwards in the kernel: both refuse --cpus, and the
	// mask the process inherits at fork places it whole.
	if h.CPUs != "" && h.Engine != roles.Goroutine && h.Engine != roles.Sockmap {
		argv = append(argv, "--cpus", h.CPUs)
	}
	argv = append(argv, listen.String())
	for _, c := range connect {
		argv = append(argv, c.String())
	}
	return argv
}
