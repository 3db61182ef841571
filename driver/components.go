package driver

import (
	"fmt"
	"strconv"
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
	// Route is --route conn or rw (a MySQL router, on the epoll engine),
	// logging clients in as User with Password; "" relays bytes.
	Route          string
	User, Password string
}

// Args is hoprelay's command line relaying listen to connect: to one of
// several upstreams (a cluster), round-robin, when connect lists more.
func (h HopRelay) Args(bin string, listen sockets.Addr, connect ...sockets.Addr) []string {
	argv := []string{bin, "--engine", string(h.Engine)}
	if h.Route != "" {
		argv = append(argv, "--route", h.Route, "--user", h.User, "--password", h.Password)
	}
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

// Protocols the embedded responder and pingpong speak.
const (
	ProtoEcho  = "echo"
	ProtoMySQL = "mysql"
)

// EmbeddedProto is the protocol of the default run's embedded backend:
// pongd's mock mysqld, so that the default measures point selects, as
// sysbench's oltp_point_select does. Setting it to ProtoEcho runs 64-byte echo.
const EmbeddedProto = ProtoMySQL
