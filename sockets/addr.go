package sockets

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Role says what an address is for. TCP4-LISTEN and UNIX-LISTEN name a
// listener, TCP4-CONNECT and UNIX-CONNECT a connector; the plain forms
// (tcp:HOST:PORT, socat's TCP4:HOST:PORT, unix:/path) leave it to where the
// address is used, as socat's TCP4: and UNIX: are used in its connect slot.
type Role uint8

const (
	RoleAny     Role = iota // short forms: listen or connect, as the caller uses it
	RoleListen              // *-LISTEN
	RoleConnect             // TCP:, UNIX-CONNECT:
)

func (r Role) String() string {
	switch r {
	case RoleListen:
		return "listen"
	case RoleConnect:
		return "connect"
	}
	return "any"
}

// Toggle is an option that may be left unset, so that a default applies.
type Toggle int8

const (
	Unset Toggle = iota
	On
	Off
)

// Options are the socket options an address carries after its first comma.
// The zero value means "defaults": TCP_NODELAY on, kernel buffer sizes and
// backlog, UNIX mode 0600.
type Options struct {
	NoDelay     Toggle // TCP_NODELAY; Unset means on (hoplat measures latency)
	ReuseAddr   bool   // SO_REUSEADDR (Go sets it on every TCP listener anyway)
	ReusePort   bool   // SO_REUSEPORT
	Fork        bool   // accepted for socat compatibility: listeners always serve many connections
	Bind        string // local address: the listen host, or the source address of a connect
	RcvBuf      int    // SO_RCVBUF in bytes, 0 = kernel default
	SndBuf      int    // SO_SNDBUF in bytes, 0 = kernel default
	Backlog     int    // listen(2) backlog, 0 = the kernel's somaxconn
	UnlinkEarly bool   // remove a stale UNIX socket (never another kind of file) before bind
	Mode        uint32 // UNIX socket permissions; 0 = DefaultMode
}

// DefaultMode is the permission a UNIX listening socket gets when the
// address names none: only its owner may connect.
const DefaultMode = 0o600

// MaxPathLen is the longest UNIX socket path: sun_path holds 108 bytes
// including the terminating NUL (unix(7)).
const MaxPathLen = 107

// Addr is a parsed address: what network, what role, where, and with which
// options. Network is "tcp", "tcp4", "tcp6" or "unix".
type Addr struct {
	Network string
	Role    Role
	Host    string // tcp: host or IP literal, empty for "any listen host"
	Port    int    // tcp
	Path    string // unix
	Opts    Options
}

// IsUnix reports whether a names a UNIX stream socket.
func (a Addr) IsUnix() bool { return a.Network == "unix" }

// keywords maps socat's address types (case-insensitive, with its
// abbreviations) and hoplat's short forms to network and role.
var keywords = map[string]struct {
	network string
	role    Role
}{
	"tcp":            {"tcp", RoleAny},
	"tcp4":           {"tcp4", RoleAny},
	"tcp6":           {"tcp6", RoleAny},
	"unix":           {"unix", RoleAny},
	"tcp-listen":     {"tcp", RoleListen},
	"tcp-l":          {"tcp", RoleListen},
	"tcp4-listen":    {"tcp4", RoleListen},
	"tcp4-l":         {"tcp4", RoleListen},
	"tcp6-listen":    {"tcp6", RoleListen},
	"tcp6-l":         {"tcp6", RoleListen},
	"tcp-connect":    {"tcp", RoleConnect},
	"tcp4-connect":   {"tcp4", RoleConnect},
	"tcp6-connect":   {"tcp6", RoleConnect},
	"unix-listen":    {"unix", RoleListen},
	"unix-l":         {"unix", RoleListen},
	"unix-connect":   {"unix", RoleConnect},
	"unix-client":    {"unix", RoleConnect},
	"unix-sendto":    {"", 0}, // named so the error says "not supported", not "unknown"
	"udp":            {"", 0},
	"udp4":           {"", 0},
	"udp-listen":     {"", 0},
	"exec":           {"", 0},
	"system":         {"", 0},
	"stdio":          {"", 0},
	"openssl":        {"", 0},
	"openssl-listen": {"", 0},
}

// Parse reads an address in hoplat's short form (tcp:HOST:PORT, tcp4:…,
// tcp6:[::1]:PORT, unix:/path) or socat's syntax (TCP4-LISTEN:4008,reuseaddr,
// fork,nodelay; TCP4:127.0.0.1:3306,nodelay; UNIX-LISTEN:/path,fork;
// UNIX-CONNECT:/path). Every error names the part that is wrong.
func Parse(s string) (Addr, error) {
	fail := func(format string, args ...any) (Addr, error) {
		return Addr{}, fmt.Errorf("sockets: parse %q: %s", s, fmt.Sprintf(format, args...))
	}
	head, opts, _ := strings.Cut(s, ",")
	kw, rest, ok := strings.Cut(head, ":")
	if !ok {
		return fail("no address type (want e.g. tcp:HOST:PORT, unix:/path, TCP4-LISTEN:PORT)")
	}
	k, known := keywords[strings.ToLower(strings.TrimSpace(kw))]
	if !known {
		return fail("unknown address type %q", kw)
	}
	if k.network == "" {
		return fail("address type %q is not supported (only TCP and UNIX stream sockets)", kw)
	}
	a := Addr{Network: k.network, Role: k.role}
	if err := a.Opts.parse(opts); err != nil {
		return fail("%v", err)
	}
	if a.IsUnix() {
		if err := checkPath(rest); err != nil {
			return fail("%v", err)
		}
		a.Path = rest
		return a, a.checkOptions(s)
	}
	var err error
	if a.Role == RoleListen {
		// socat: TCP-LISTEN:PORT, the host comes from bind=.
		if strings.Contains(rest, ":") {
			return fail("%s takes a port only (bind=HOST names the address)", strings.ToUpper(kw))
		}
		a.Port, err = parsePort(rest, true)
		a.Host = a.Opts.Bind
		a.Opts.Bind = ""
	} else {
		a.Host, a.Port, err = splitHostPort(rest, a.Role)
	}
	if errors.Is(err, errNoPort) {
		return fail("the port is missing; want %s:%s:PORT", kw, rest)
	}
	if err != nil {
		return fail("%v", err)
	}
	if a.Host != "" && strings.ContainsAny(a.Host, " /") {
		return fail("bad host %q", a.Host)
	}
	return a, a.checkOptions(s)
}

// errNoPort is splitHostPort's error for a host without its port, which
// Parse says in the words typed (tcp:localhost wants tcp:localhost:PORT).
var errNoPort = errors.New("no port")

// Typed reports whether s begins with an address type Parse knows (tcp:,
// unix:, TCP4-LISTEN:, ...), supported or not: whether it was meant as an
// address, however its rest reads.
func Typed(s string) bool {
	kw, _, ok := strings.Cut(s, ":")
	_, known := keywords[strings.ToLower(strings.TrimSpace(kw))]
	return ok && known
}

func splitHostPort(s string, role Role) (string, int, error) {
	if s == "" {
		return "", 0, fmt.Errorf("missing HOST:PORT")
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		// tcp:PORT alone names a listen port on the default host.
		if role == RoleAny && isDigits(s) {
			p, err := parsePort(s, true)
			return "", p, err
		}
		var ae *net.AddrError
		if errors.As(err, &ae) && ae.Err == "missing port in address" {
			return "", 0, errNoPort
		}
		return "", 0, fmt.Errorf("bad HOST:PORT %q", s)
	}
	p, err := parsePort(port, role != RoleConnect)
	if err != nil {
		return "", 0, err
	}
	if role == RoleConnect && host == "" {
		return "", 0, fmt.Errorf("missing host in %q", s)
	}
	return host, p, nil
}

func parsePort(s string, zeroOK bool) (int, error) {
	if !isDigits(s) {
		return 0, fmt.Errorf("bad port %q", s)
	}
	p, err := strconv.Atoi(s)
	if err != nil || p > 65535 || (p == 0 && !zeroOK) {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return p, nil
}

func isDigits(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func checkPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty UNIX socket path")
	case len(p) > MaxPathLen:
		return fmt.Errorf("UNIX socket path is %d bytes, over the %d-byte sun_path limit", len(p), MaxPathLen)
	case strings.IndexByte(p, 0) >= 0:
		return fmt.Errorf("UNIX socket path contains a NUL byte")
	}
	return nil
}

// checkOptions rejects options that make no sense for the address.
func (a Addr) checkOptions(s string) error {
	o := a.Opts
	bad := ""
	switch {
	case a.IsUnix() && o.NoDelay != Unset:
		bad = "nodelay (TCP only)"
	case a.IsUnix() && (o.ReuseAddr || o.ReusePort):
		bad = "reuseaddr/reuseport (TCP only)"
	case a.IsUnix() && o.Bind != "":
		bad = "bind (TCP only)"
	case !a.IsUnix() && o.UnlinkEarly:
		bad = "unlink-early (UNIX only)"
	case !a.IsUnix() && o.Mode != 0:
		bad = "mode (UNIX only)"
	case a.Role == RoleConnect && (o.UnlinkEarly || o.Mode != 0 || o.Backlog != 0 || o.ReusePort):
		bad = "unlink-early/mode/backlog/reuseport: a listen option on a connect address"
	}
	if bad != "" {
		return fmt.Errorf("sockets: parse %q: option %s", s, bad)
	}
	return nil
}

// parse reads the comma-separated options after the address.
func (o *Options) parse(s string) error {
	if s == "" {
		return nil
	}
	for _, opt := range strings.Split(s, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(opt), "=")
		name = strings.ToLower(name)
		flag := func() (bool, error) {
			if !hasVal {
				return true, nil
			}
			switch val {
			case "1", "true", "on", "yes":
				return true, nil
			case "0", "false", "off", "no":
				return false, nil
			}
			return false, fmt.Errorf("option %s: bad value %q (want 0 or 1)", name, val)
		}
		size := func() (int, error) {
			if !hasVal {
				return 0, fmt.Errorf("option %s needs a value", name)
			}
			n, err := strconv.Atoi(val)
			if err != nil || n <= 0 || n > 1<<30 {
				return 0, fmt.Errorf("option %s: bad value %q", name, val)
			}
			return n, nil
		}
		var err error
		var b bool
		switch name {
		case "nodelay":
			if b, err = flag(); err == nil {
				o.NoDelay = map[bool]Toggle{true: On, false: Off}[b]
			}
		case "reuseaddr", "so-reuseaddr":
			o.ReuseAddr, err = flag()
		case "reuseport", "so-reuseport":
			o.ReusePort, err = flag()
		case "fork":
			o.Fork, err = flag()
		case "unlink-early":
			o.UnlinkEarly, err = flag()
		case "bind":
			if !hasVal || val == "" {
				err = fmt.Errorf("option bind needs a value")
			}
			o.Bind = val
		case "rcvbuf", "so-rcvbuf":
			o.RcvBuf, err = size()
		case "sndbuf", "so-sndbuf":
			o.SndBuf, err = size()
		case "backlog":
			o.Backlog, err = size()
		case "mode", "perm":
			var m uint64
			if !hasVal {
				err = fmt.Errorf("option %s needs a value", name)
			} else if m, err = strconv.ParseUint(val, 8, 32); err != nil || m == 0 || m > 0o777 {
				err = fmt.Errorf("option %s: bad octal permissions %q", name, val)
			}
			o.Mode = uint32(m)
		case "":
			err = fmt.Errorf("empty option")
		default:
			err = fmt.Errorf("unknown option %q", name)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// String gives the canonical form: lower-case keyword naming network and
// role, then the options hoplat understood, in a fixed order. Parse of the
// result gives back the same Addr.
func (a Addr) String() string {
	var b strings.Builder
	b.WriteString(a.Network)
	switch a.Role {
	case RoleListen:
		b.WriteString("-listen")
	case RoleConnect:
		b.WriteString("-connect")
	}
	b.WriteByte(':')
	o := a.Opts
	switch {
	case a.IsUnix():
		b.WriteString(a.Path)
	case a.Role == RoleListen:
		b.WriteString(strconv.Itoa(a.Port))
		o.Bind = a.Host
	default:
		b.WriteString(net.JoinHostPort(a.Host, strconv.Itoa(a.Port)))
	}
	switch o.NoDelay {
	case On:
		b.WriteString(",nodelay")
	case Off:
		b.WriteString(",nodelay=0")
	}
	for _, f := range []struct {
		on   bool
		name string
	}{{o.ReuseAddr, "reuseaddr"}, {o.ReusePort, "reuseport"}, {o.Fork, "fork"}, {o.UnlinkEarly, "unlink-early"}} {
		if f.on {
			b.WriteString("," + f.name)
		}
	}
	if o.Bind != "" {
		b.WriteString(",bind=" + o.Bind)
	}
	for _, f := range []struct {
		n    int
		name string
	}{{o.RcvBuf, "rcvbuf"}, {o.SndBuf, "sndbuf"}, {o.Backlog, "backlog"}} {
		if f.n != 0 {
			fmt.Fprintf(&b, ",%s=%d", f.name, f.n)
		}
	}
	if o.Mode != 0 {
		fmt.Fprintf(&b, ",mode=%o", o.Mode)
	}
	return b.String()
}

// ListenHost is the host a listener binds: the one named, else loopback.
// hoplat never exposes a responder or relay beyond the machine by default.
func (a Addr) ListenHost() string {
	if a.Host != "" {
		return a.Host
	}
	if a.Network == "tcp6" {
		return "::1"
	}
	return "127.0.0.1"
}

// NetAddr is the address in the form package net takes: HOST:PORT, or the
// path for UNIX. Listen addresses get their default host.
func (a Addr) NetAddr() string {
	if a.IsUnix() {
		return a.Path
	}
	host := a.Host
	if a.Role != RoleConnect {
		host = a.ListenHost()
	}
	return net.JoinHostPort(host, strconv.Itoa(a.Port))
}

// FromNet turns a bound net.Addr (as a listener reports it, with its real
// port) back into an Addr carrying the same options: how a caller that
// listened on port 0 learns where to dial.
func (a Addr) FromNet(na net.Addr) Addr {
	out := a
	out.Role = RoleAny
	switch v := na.(type) {
	case *net.TCPAddr:
		out.Host = v.IP.String()
		out.Port = v.Port
	case *net.UnixAddr:
		out.Path = v.Name
	}
	return out
}
