package driver

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/sockets"
)

// Backend is the server at the end of every path. Its zero value is the
// embedded responder (pongd) that hopbench starts itself.
type Backend struct {
	URL      string        // as given, password masked by String
	TCP      *sockets.Addr // a real server's TCP address, nil if none
	UNIX     *sockets.Addr // its UNIX socket, nil if none
	User     string
	Password string
	DB       string
	// Servers are every server of a cluster, TCP first among them: the
	// relay and HAProxy paths balance over them, round-robin, where the
	// direct path (one server, as the field notes' Galera table has it)
	// dials TCP alone. Nil for one server.
	Servers []sockets.Addr
	// CheckUser is the account HAProxy's option mysql-check logs in as
	// when it checks a cluster's servers (one without a password); "" checks
	// each server's greeting alone.
	CheckUser string
}

// Embedded reports whether the backend is hopbench's own responder.
func (b Backend) Embedded() bool { return b.TCP == nil && b.UNIX == nil }

// String is the backend as reports print it, without the password.
func (b Backend) String() string {
	if b.Embedded() {
		return "embedded"
	}
	u, err := url.Parse(b.URL)
	if err != nil {
		return "mysql://?"
	}
	if u.User != nil {
		u.User = url.User(u.User.Username())
	}
	return u.String()
}

// ParseBackends parses one backend or several separated by ';' (a sweep's
// servers, RonDB's SERVER_HOST="a;b"); several must all be mysql://.
func ParseBackends(s string) ([]Backend, error) {
	if !strings.Contains(s, ";") {
		b, err := ParseBackend(s)
		return []Backend{b}, err
	}
	var out []Backend
	for _, it := range strings.Split(s, ";") {
		b, err := ParseBackend(strings.TrimSpace(it))
		if err != nil {
			return nil, err
		}
		if b.Embedded() {
			return nil, fmt.Errorf("driver: parse backends: %q: several backends are mysql:// servers", it)
		}
		out = append(out, b)
	}
	return out, nil
}

// ParseBackend reads --backend: "embedded" (or empty), or a MySQL server as
// mysql://USER:PASS@HOST:PORT/DB, mysql://USER:PASS@unix(/path/mysqld.sock)/DB
// (the go-sql-driver spelling), or mysql://USER:PASS@HOST:PORT/DB?socket=/path
// to name both, so the direct UNIX path runs too. A cluster lists its
// servers comma-separated, as libpq's multi-host URLs do:
// mysql://USER:PASS@HOST1:PORT1,HOST2:PORT2,HOST3:PORT3/DB, with
// ?check_user=NAME for HAProxy's option mysql-check.
func ParseBackend(s string) (Backend, error) {
	if s == "" || s == "embedded" {
		return Backend{}, nil
	}
	fail := func(format string, args ...any) (Backend, error) {
		return Backend{}, fmt.Errorf("driver: parse backend %q: %s", mask(s), fmt.Sprintf(format, args...))
	}
	rest, ok := strings.CutPrefix(s, "mysql://")
	if !ok {
		return fail("want embedded or mysql://USER:PASS@HOST:PORT/DB")
	}
	b := Backend{URL: s}
	unixOnly := false
	// unix(/path) holds slashes that url.Parse would read as the URL path.
	if at := strings.LastIndex(rest, "@unix("); at >= 0 {
		end := strings.Index(rest[at:], ")")
		if end < 0 {
			return fail("unix( without )")
		}
		p := UNIXAddr(rest[at+len("@unix(") : at+end])
		b.UNIX = &p
		rest = rest[:at+1] + "localhost" + rest[at+end+1:]
		unixOnly = true
	}
	var hosts []string
	if at := strings.LastIndex(rest, "@"); !unixOnly && at >= 0 {
		end := strings.IndexAny(rest[at:], "/?")
		if end < 0 {
			end = len(rest) - at
		}
		if list := rest[at+1 : at+end]; strings.Contains(list, ",") {
			hosts = strings.Split(list, ",")
			rest = rest[:at+1] + hosts[0] + rest[at+end:]
		}
	}
	u, err := url.Parse("mysql://" + rest)
	if err != nil {
		return fail("%v", err)
	}
	b.CheckUser = u.Query().Get("check_user")
	if u.User != nil {
		b.User = u.User.Username()
		b.Password, _ = u.User.Password()
	}
	if b.User == "" {
		return fail("no user")
	}
	b.DB = strings.TrimPrefix(u.Path, "/")
	if sock := u.Query().Get("socket"); sock != "" {
		p := UNIXAddr(sock)
		b.UNIX = &p
	}
	if unixOnly {
		return b, nil
	}
	if hosts == nil {
		hosts = []string{u.Host}
	}
	for _, h := range hosts {
		a, err := serverAddr(h)
		if err != nil {
			return fail("%v", err)
		}
		b.Servers = append(b.Servers, a)
	}
	b.TCP = &b.Servers[0]
	if len(b.Servers) == 1 {
		b.Servers = nil
	}
	return b, nil
}

// serverAddr reads one HOST[:PORT] of a backend URL, 3306 when no port.
func serverAddr(hostPort string) (sockets.Addr, error) {
	host, portStr, err := net.SplitHostPort(hostPort)
	if err != nil {
		host, portStr = hostPort, "3306"
	}
	if host == "" {
		return sockets.Addr{}, fmt.Errorf("no host")
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return sockets.Addr{}, fmt.Errorf("bad port %q", portStr)
	}
	return sockets.Addr{Network: "tcp", Host: host, Port: port}, nil
}

// Cluster is the backend's TCP servers: Servers, or TCP alone; nil when it
// has no TCP address.
func (b Backend) Cluster() []sockets.Addr {
	if len(b.Servers) > 0 {
		return b.Servers
	}
	if b.TCP != nil {
		return []sockets.Addr{*b.TCP}
	}
	return nil
}

// mask hides the password of a URL in error messages.
func mask(s string) string {
	at := strings.LastIndex(s, "@")
	rest, ok := strings.CutPrefix(s, "mysql://")
	if at < 0 || !ok {
		return s
	}
	creds := rest[:at-len("mysql://")]
	if user, _, ok := strings.Cut(creds, ":"); ok {
		return "mysql://" + user + ":***" + s[at:]
	}
	return s
}
