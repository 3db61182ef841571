package proxyconf

import (
	"fmt"
	"os"
	"strings"

	"github.com/hoplat/hoplat/sockets"
)

// HAProxyRoute is one frontend/backend pair of the generated config.
type HAProxyRoute struct {
	Name    string // a path's name; sanitised into section names
	Listen  sockets.Addr
	Connect []sockets.Addr // the backend's servers: one, or a cluster's
	// MySQL says the servers speak MySQL: a cluster's are then checked
	// with option mysql-check, as user CheckUser when set (an account
	// without a password, as HAProxy requires), else by the server's
	// greeting alone.
	MySQL     bool
	CheckUser string
}

// HAProxy is the configuration hoplat runs HAProxy with: one thread
// (nbthread 1 in HAProxy's configuration manual, so it is one event loop like
// socat's child or hoprelay's epoll engine), mode tcp, and one
// frontend/backend pair per route. Timeouts are set because HAProxy warns
// without them; they are far longer than any round.
//
// A route to several servers is the published Galera set-up (docs/galera.md): balance
// roundrobin, each server checked every 2 s (hoprelay's --retry default,
// so that both skip a dead server for as long), with option mysql-check
// for MySQL servers, and option redispatch so that a refused connect is
// retried on another server, as hoprelay tries the next upstream.
func HAProxy(routes []HAProxyRoute) string {
	var b strings.Builder
	b.WriteString("global\n\tnbthread 1\n\tmaxconn 4096\n\n")
	b.WriteString("defaults\n\tmode tcp\n\ttimeout connect 5s\n\ttimeout client 10m\n\ttimeout server 10m\n")
	for i, r := range routes {
		id := fmt.Sprintf("p%d_%s", i, SectionName(r.Name))
		fmt.Fprintf(&b, "\nfrontend f_%s\n\tbind %s\n\tdefault_backend b_%s\n", id, haproxyAddr(r.Listen), id)
		fmt.Fprintf(&b, "\nbackend b_%s\n", id)
		if len(r.Connect) == 1 {
			fmt.Fprintf(&b, "\tserver s0 %s\n", haproxyAddr(r.Connect[0]))
			continue
		}
		b.WriteString("\tbalance roundrobin\n\toption redispatch 1\n\tretries 3\n")
		if r.MySQL {
			if r.CheckUser != "" {
				fmt.Fprintf(&b, "\toption mysql-check user %s\n", r.CheckUser)
			} else {
				b.WriteString("\toption mysql-check\n")
			}
		}
		for j, c := range r.Connect {
			fmt.Fprintf(&b, "\tserver s%d %s check inter 2s\n", j, haproxyAddr(c))
		}
	}
	return b.String()
}

// haproxyAddr writes an address as HAProxy reads it: host:port, or an
// absolute path for a UNIX socket.
func haproxyAddr(a sockets.Addr) string {
	if a.IsUnix() {
		return a.Path
	}
	return fmt.Sprintf("%s:%d", a.Host, a.Port)
}

// SectionName is s with every byte but an ASCII letter or digit replaced
// by '_': a word HAProxy takes as a section's name, and a file name.
func SectionName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}

// WriteHAProxy writes HAProxy(routes) to path, readable by its owner
// only: a check user's name is in it.
func WriteHAProxy(path string, routes []HAProxyRoute) error {
	if err := os.WriteFile(path, []byte(HAProxy(routes)), 0o600); err != nil {
		return fmt.Errorf("proxyconf: write %s: %w", path, err)
	}
	return nil
}

// HAProxyArgs is HAProxy's command line with the configuration at
// config, in the foreground (-db): it stays the process hoplat started,
// so that its PID is the one measured and its process group the one
// stopped.
func HAProxyArgs(bin, config string) []string { return []string{bin, "-db", "-f", config} }
