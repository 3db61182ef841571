package driver

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hoplat/hoplat/results/hop"
	"github.com/hoplat/hoplat/sockets"
)

// TCPAddr is the loopback TCP address with port (0 asks the kernel).
func TCPAddr(port int) sockets.Addr {
	return sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: port}
}

// UNIXAddr is the UNIX stream socket at path.
func UNIXAddr(path string) sockets.Addr { return sockets.Addr{Network: "unix", Path: path} }

// Responder is how hopbench starts pongd, the embedded backend.
type Responder struct {
	Proto       string        // echo or mysql
	ServiceTime time.Duration // time pongd spends before each reply
	Rows        int           // mysql: rows in each result set (0: pongd's default)
	RowBytes    int           // mysql: bytes per row (0: pongd's default)
	User        string        // mysql credentials pingpong must present
	Password    string
	CPUs        string // --cpus, the placement's server CPUs (also applied at fork)
}

// Args is pongd's command line, serving on every address in listen (port 0
// and temp-dir paths, read back from its `listening` lines).
func (r Responder) Args(bin string, listen []sockets.Addr) []string {
	// --io blocking for the reason Client.Args gives.
	argv := []string{bin, "--proto", r.Proto, "--io", "blocking"}
	for _, a := range listen {
		argv = append(argv, "--listen", a.String())
	}
	if r.ServiceTime > 0 {
		argv = append(argv, "--service-time", r.ServiceTime.String())
	}
	if r.Proto == ProtoMySQL {
		argv = append(argv, "--user", r.User, "--password", r.Password)
		if r.Rows > 0 {
			argv = append(argv, "--rows", strconv.Itoa(r.Rows))
		}
		if r.RowBytes > 0 {
			argv = append(argv, "--row-bytes", strconv.Itoa(r.RowBytes))
		}
	}
	if r.CPUs != "" {
		argv = append(argv, "--cpus", r.CPUs)
	}
	return argv
}

// HopRelay is how hopbench starts one hoprelay process.
type HopRelay struct {
	Engine hop.Relay
	Lock   string // --lock none|conn|global; empty leaves hoprelay's default
	Stats  string // --stats FILE; empty for none
	CPUs   string // --cpus, the placement's relay CPUs (also applied at fork)
}

// Args is hoprelay's command line relaying listen to connect: to one of
// several upstreams (a cluster), round-robin, when connect lists more.
func (h HopRelay) Args(bin string, listen sockets.Addr, connect ...sockets.Addr) []string {
	argv := []string{bin, "--engine", string(h.Engine)}
	if h.Lock != "" {
		argv = append(argv, "--lock", h.Lock)
	}
	if h.Stats != "" {
		argv = append(argv, "--stats", h.Stats)
	}
	// The goroutine engine has no threads of its own to pin and refuses
	// --cpus; the mask it inherits at fork (startOn) places it whole.
	if h.CPUs != "" && h.Engine != hop.Goroutine && h.Engine != hop.Sockmap {
		argv = append(argv, "--cpus", h.CPUs)
	}
	argv = append(argv, listen.String())
	for _, c := range connect {
		argv = append(argv, c.String())
	}
	return argv
}

// SocatArgs is socat's command line for one hop, with socat(1)'s address
// options: nodelay (TCP_NODELAY, tcp(7)) on both TCP legs, fork so that
// every connection gets its own child, and a listen backlog of 1024:
// socat's default of 5 (socat(1), backlog=) overflowed when a round
// opened 64 connections at once, and the overflowed ones were reset
// (pingpong: "read greeting: connection reset by peer"), where hoprelay
// and HAProxy listen with the kernel's somaxconn.
//
//	socat TCP4-LISTEN:4008,reuseaddr,fork,nodelay,backlog=1024 TCP4:127.0.0.1:3000,nodelay
//	socat UNIX-LISTEN:$PWD/mysql.sock,fork,backlog=1024 TCP4:127.0.0.1:3000,nodelay
func SocatArgs(bin string, listen, connect sockets.Addr) []string {
	const socatBacklog = ",backlog=1024"
	var l, c string
	if listen.IsUnix() {
		l = "UNIX-LISTEN:" + listen.Path + ",fork" + socatBacklog
	} else {
		l = fmt.Sprintf("TCP4-LISTEN:%d,reuseaddr,fork,nodelay", listen.Port) + socatBacklog
	}
	if connect.IsUnix() {
		c = "UNIX-CONNECT:" + connect.Path
	} else {
		c = fmt.Sprintf("TCP4:%s:%d,nodelay", connect.Host, connect.Port)
	}
	return []string{bin, l, c}
}

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

// HAProxyConfig is the configuration hopbench runs HAProxy with: one thread
// (nbthread 1 in HAProxy's configuration manual, so it is one event loop like
// socat's child or hoprelay's epoll engine), mode tcp, and one
// frontend/backend pair per route. Timeouts are set because HAProxy warns
// without them; they are far longer than any round.
//
// A route to several servers is the field notes' Galera set-up: balance
// roundrobin, each server checked every 2 s (hoprelay's --retry default,
// so that both skip a dead server for as long), with option mysql-check
// for MySQL servers, and option redispatch so that a refused connect is
// retried on another server, as hoprelay tries the next upstream.
func HAProxyConfig(routes []HAProxyRoute) string {
	var b strings.Builder
	b.WriteString("global\n\tnbthread 1\n\tmaxconn 4096\n\n")
	b.WriteString("defaults\n\tmode tcp\n\ttimeout connect 5s\n\ttimeout client 10m\n\ttimeout server 10m\n")
	for i, r := range routes {
		id := fmt.Sprintf("p%d_%s", i, sectionName(r.Name))
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

func sectionName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, s)
}

// Protocols the embedded responder and pingpong speak.
const (
	ProtoEcho  = "echo"
	ProtoMySQL = "mysql"
)

// EmbeddedProto is the protocol of the default run's embedded backend:
// pongd's mock mysqld, so that the default measures point selects, as
// sysbench's oltp_point_select does. Setting it to ProtoEcho runs 64-byte echo.
const EmbeddedProto = ProtoMySQL
