package mysql

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/hoplat/hoplat/sockets"
)

// URL is a MySQL server as a mysql:// URL names it: hopbench --backend and
// pingpong --target read the same grammar.
type URL struct {
	TCP      *sockets.Addr // the (first) server's TCP address; nil for a UNIX socket alone
	UNIX     *sockets.Addr // its UNIX socket; nil if none
	User     string
	Password string
	HasPass  bool // the URL gives a password, empty or not
	DB       string
	// Servers are every server of a cluster, TCP's first; nil for one.
	Servers   []sockets.Addr
	CheckUser string // ?check_user=NAME
}

// ParseURL reads mysql://USER:PASS@HOST:PORT/DB (port 3306 when none),
// mysql://USER:PASS@unix(/path/mysqld.sock)/DB (the go-sql-driver
// spelling), or mysql://USER:PASS@HOST:PORT/DB?socket=/path to name both.
// A cluster lists its servers comma-separated, as libpq's multi-host URLs
// do: mysql://USER:PASS@HOST1:PORT1,HOST2:PORT2/DB, with ?check_user=NAME.
// Its errors say what is wrong and no more: the caller names the URL, its
// password masked (Mask).
func ParseURL(s string) (URL, error) {
	rest, ok := strings.CutPrefix(s, "mysql://")
	if !ok {
		return URL{}, errors.New("want mysql://USER:PASS@HOST:PORT/DB")
	}
	var u URL
	unixOnly := false
	// unix(/path) holds slashes that url.Parse would read as the URL path.
	if at := strings.LastIndex(rest, "@unix("); at >= 0 {
		end := strings.Index(rest[at:], ")")
		if end < 0 {
			return URL{}, errors.New("unix( without )")
		}
		u.UNIX = &sockets.Addr{Network: "unix", Path: rest[at+len("@unix(") : at+end]}
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
	pu, err := url.Parse("mysql://" + rest)
	if err != nil {
		// url's errors quote the URL, password and all.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return URL{}, err
	}
	u.CheckUser = pu.Query().Get("check_user")
	if pu.User != nil {
		u.User = pu.User.Username()
		u.Password, u.HasPass = pu.User.Password()
	}
	if u.User == "" {
		return URL{}, errors.New("no user")
	}
	u.DB = strings.TrimPrefix(pu.Path, "/")
	if sock := pu.Query().Get("socket"); sock != "" {
		u.UNIX = &sockets.Addr{Network: "unix", Path: sock}
	}
	if unixOnly {
		return u, nil
	}
	if hosts == nil {
		hosts = []string{pu.Host}
	}
	for _, h := range hosts {
		a, err := serverAddr(h)
		if err != nil {
			return URL{}, err
		}
		u.Servers = append(u.Servers, a)
	}
	u.TCP = &u.Servers[0]
	if len(u.Servers) == 1 {
		u.Servers = nil
	}
	return u, nil
}

// serverAddr reads one HOST[:PORT] of a URL, 3306 when no port.
func serverAddr(hostPort string) (sockets.Addr, error) {
	host, portStr, err := net.SplitHostPort(hostPort)
	if err != nil {
		host, portStr = hostPort, "3306"
	}
	if host == "" {
		return sockets.Addr{}, errors.New("no host")
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port <= 0 || port > 65535 {
		return sockets.Addr{}, fmt.Errorf("bad port %q", portStr)
	}
	return sockets.Addr{Network: "tcp", Host: host, Port: port}, nil
}

// Mask is s with the password of its mysql:// URL hidden, for messages.
func Mask(s string) string {
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
