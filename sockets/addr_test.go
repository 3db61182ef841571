package sockets

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	long := "/tmp/" + strings.Repeat("x", MaxPathLen)
	tests := []struct {
		in   string
		want Addr
		err  string // substring of the error; "" = no error
	}{
		{in: "tcp:127.0.0.1:3306", want: Addr{Network: "tcp", Host: "127.0.0.1", Port: 3306}},
		{in: "tcp4:localhost:80,nodelay", want: Addr{Network: "tcp4", Host: "localhost", Port: 80, Opts: Options{NoDelay: On}}},
		{in: "tcp6:[::1]:3306", want: Addr{Network: "tcp6", Host: "::1", Port: 3306}},
		{in: "tcp::0", want: Addr{Network: "tcp", Port: 0}},
		{in: "tcp:4008", want: Addr{Network: "tcp", Port: 4008}},
		{in: "unix:/tmp/m.sock", want: Addr{Network: "unix", Path: "/tmp/m.sock"}},
		{in: "TCP4-LISTEN:4008,reuseaddr,fork,nodelay", want: Addr{Network: "tcp4", Role: RoleListen, Port: 4008,
			Opts: Options{ReuseAddr: true, Fork: true, NoDelay: On}}},
		{in: "TCP4:127.0.0.1:3000,nodelay", want: Addr{Network: "tcp4", Role: RoleAny, Host: "127.0.0.1", Port: 3000, Opts: Options{NoDelay: On}}},
		{in: "tcp-l:9000,bind=127.0.0.2,backlog=64,rcvbuf=65536,sndbuf=65536,reuseport", want: Addr{Network: "tcp", Role: RoleListen,
			Host: "127.0.0.2", Port: 9000, Opts: Options{Backlog: 64, RcvBuf: 65536, SndBuf: 65536, ReusePort: true}}},
		{in: "TCP-CONNECT:db:3306,bind=127.0.0.1,nodelay=0", want: Addr{Network: "tcp", Role: RoleConnect, Host: "db", Port: 3306,
			Opts: Options{Bind: "127.0.0.1", NoDelay: Off}}},
		{in: "UNIX-LISTEN:/run/mysql.sock,fork,unlink-early,mode=660", want: Addr{Network: "unix", Role: RoleListen, Path: "/run/mysql.sock",
			Opts: Options{Fork: true, UnlinkEarly: true, Mode: 0o660}}},
		{in: "UNIX-CONNECT:/run/mysql.sock", want: Addr{Network: "unix", Role: RoleConnect, Path: "/run/mysql.sock"}},
		{in: "unix-client:rel.sock", want: Addr{Network: "unix", Role: RoleConnect, Path: "rel.sock"}},

		{in: "4008", err: "no address type"},
		{in: "SCTP:1.2.3.4:5", err: `unknown address type "SCTP"`},
		{in: "UDP4:1.2.3.4:5", err: `"UDP4" is not supported`},
		{in: "TCP4-LISTEN:http", err: `bad port "http"`},
		{in: "TCP4-LISTEN:65536", err: `bad port "65536"`},
		{in: "TCP4-LISTEN:1.2.3.4:80", err: "port only"},
		{in: "TCP4-CONNECT:127.0.0.1:0", err: `bad port "0"`},
		{in: "TCP4:127.0.0.1", err: `parse "TCP4:127.0.0.1": the port is missing; want TCP4:127.0.0.1:PORT`},
		{in: "tcp:localhost", err: "the port is missing; want tcp:localhost:PORT"},
		{in: "tcp:::1", err: "bad HOST:PORT"},
		{in: "TCP4-CONNECT::3306", err: "missing host"},
		{in: "tcp:", err: "missing HOST:PORT"},
		{in: "TCP4-LISTEN:4008,nodelya", err: `unknown option "nodelya"`},
		{in: "TCP4-LISTEN:4008,,fork", err: "empty option"},
		{in: "TCP4-LISTEN:4008,rcvbuf=big", err: `option rcvbuf: bad value "big"`},
		{in: "TCP4-LISTEN:4008,backlog", err: "option backlog needs a value"},
		{in: "TCP4-LISTEN:4008,nodelay=2", err: `option nodelay: bad value "2"`},
		{in: "UNIX-LISTEN:", err: "empty UNIX socket path"},
		{in: "UNIX-LISTEN:" + long, err: "over the 107-byte sun_path limit"},
		{in: "UNIX-LISTEN:/x,mode=999", err: `bad octal permissions "999"`},
		{in: "UNIX-LISTEN:/x,nodelay", err: "option nodelay (TCP only)"},
		{in: "TCP-LISTEN:1,unlink-early", err: "option unlink-early (UNIX only)"},
		{in: "UNIX-CONNECT:/x,mode=600", err: "listen option on a connect address"},
		{in: "TCP-CONNECT:h:1,backlog=3", err: "listen option on a connect address"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tt.in, err, tt.err)
			}
			if err != nil && !strings.Contains(err.Error(), tt.in) {
				t.Errorf("Parse(%q) error %q does not name the input", tt.in, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		back, err := Parse(got.String())
		if err != nil || back != got {
			t.Errorf("round trip %q -> %q -> %+v, %v", tt.in, got.String(), back, err)
		}
	}
}

func TestNetAddr(t *testing.T) {
	for in, want := range map[string]string{
		"TCP4-LISTEN:4008":          "127.0.0.1:4008",
		"TCP6-LISTEN:4008":          "[::1]:4008",
		"TCP-LISTEN:1,bind=0.0.0.0": "0.0.0.0:1",
		"tcp::5":                    "127.0.0.1:5",
		"TCP:db:3306":               "db:3306",
		"unix:/a/b":                 "/a/b",
	} {
		a, err := Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := a.NetAddr(); got != want {
			t.Errorf("%s: NetAddr = %q, want %q", in, got, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"TCP4-LISTEN:4008,reuseaddr,fork,nodelay", "TCP4:127.0.0.1:3000,nodelay",
		"UNIX-LISTEN:/tmp/x.sock,fork,mode=660,unlink-early", "UNIX-CONNECT:/x", "tcp6:[::1]:1",
		"tcp:4008", "TCP:h:1,bind=1.2.3.4:5,rcvbuf=1", "tcp-l:0,backlog=1,nodelay=0",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := Parse(s)
		if err != nil {
			return
		}
		back, err := Parse(a.String())
		if err != nil {
			t.Fatalf("Parse(%q) = %+v, whose String %q does not parse: %v", s, a, a.String(), err)
		}
		if back != a {
			t.Fatalf("round trip of %q: %+v -> %q -> %+v", s, a, a.String(), back)
		}
	})
}

// Typed tells an address whose rest is wrong from a word that is no
// address at all, so that a caller says the address's fault.
func TestTyped(t *testing.T) {
	for s, want := range map[string]bool{
		"tcp:localhost": true, "TCP4-LISTEN:x": true, "udp:1.2.3.4:5": true, "unix:": true,
		"localhost:3306": false, "haproxy": false, "mysql://u@h:1/d": false, "": false,
	} {
		if got := Typed(s); got != want {
			t.Errorf("Typed(%q) = %v, want %v", s, got, want)
		}
	}
}
