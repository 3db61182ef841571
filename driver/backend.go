package driver

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/hoplat/hoplat/pingpong/mysql"
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
	// direct path (one server, as the published Galera table has it (docs/galera.md))
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
	if !strings.HasPrefix(s, "mysql://") {
		return Backend{}, fmt.Errorf("driver: parse backend %q: want embedded or mysql://USER:PASS@HOST:PORT/DB", s)
	}
	u, err := mysql.ParseURL(s)
	if err != nil {
		return Backend{}, fmt.Errorf("driver: parse backend %q: %v", mysql.Mask(s), err)
	}
	return Backend{URL: s, TCP: u.TCP, UNIX: u.UNIX, User: u.User, Password: u.Password, DB: u.DB,
		Servers: u.Servers, CheckUser: u.CheckUser}, nil
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
