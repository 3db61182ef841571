package driver

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/results/hop"
)

// socat's command lines, to the byte, as socat(1) reads them.
func TestSocatArgsMatchFieldNotes(t *testing.T) {
	for _, tc := range []struct {
		listen, connect string
		want            []string
	}{
		{"tcp:4008", "tcp:127.0.0.1:3000", []string{"socat", "TCP4-LISTEN:4008,reuseaddr,fork,nodelay,backlog=1024", "TCP4:127.0.0.1:3000,nodelay"}},
		{"unix:/w/mysql.sock", "tcp:127.0.0.1:3000", []string{"socat", "UNIX-LISTEN:/w/mysql.sock,fork,backlog=1024", "TCP4:127.0.0.1:3000,nodelay"}},
		{"tcp:4008", "unix:/w/up.sock", []string{"socat", "TCP4-LISTEN:4008,reuseaddr,fork,nodelay,backlog=1024", "UNIX-CONNECT:/w/up.sock"}},
	} {
		l, c := mustAddr(t, tc.listen), mustAddr(t, tc.connect)
		if got := SocatArgs("socat", l, c); !slices.Equal(got, tc.want) {
			t.Errorf("SocatArgs(%s, %s)\n got %q\nwant %q", tc.listen, tc.connect, got, tc.want)
		}
	}
}

func TestHopRelayArgsCluster(t *testing.T) {
	h := HopRelay{Engine: hop.Epoll}
	got := strings.Join(h.Args("hoprelay", TCPAddr(0), TCPAddr(3306), TCPAddr(3307)), " ")
	if want := "hoprelay --engine epoll tcp:127.0.0.1:0 tcp:127.0.0.1:3306 tcp:127.0.0.1:3307"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestResponderArgs(t *testing.T) {
	r := Responder{Proto: ProtoMySQL, ServiceTime: 20 * time.Microsecond, Rows: 10, RowBytes: 100, User: "u", Password: "p", CPUs: "1"}
	got := strings.Join(r.Args("pongd", []addrT{TCPAddr(0), UNIXAddr("/w/p.sock")}), " ")
	want := "pongd --proto mysql --io blocking --listen tcp:127.0.0.1:0 --listen unix:/w/p.sock --service-time 20µs --user u --password p --rows 10 --row-bytes 100 --cpus 1"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	echo := Responder{Proto: ProtoEcho, Rows: 10}
	if got := strings.Join(echo.Args("pongd", []addrT{TCPAddr(0)}), " "); got != "pongd --proto echo --io blocking --listen tcp:127.0.0.1:0" {
		t.Errorf("echo: %s", got)
	}
}

func TestHopRelayArgs(t *testing.T) {
	h := HopRelay{Engine: hop.Epoll, Lock: "global", Stats: "/w/s.json", CPUs: "1"}
	got := strings.Join(h.Args("hoprelay", TCPAddr(0), TCPAddr(3000)), " ")
	want := "hoprelay --engine epoll --lock global --stats /w/s.json --cpus 1 tcp:127.0.0.1:0 tcp:127.0.0.1:3000"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	h = HopRelay{Engine: hop.Epoll, Route: "rw", User: "sb", Password: "pw"}
	got = strings.Join(h.Args("hoprelay", TCPAddr(0), TCPAddr(3000), TCPAddr(3001)), " ")
	if want := "hoprelay --engine epoll --route rw --user sb --password pw tcp:127.0.0.1:0 tcp:127.0.0.1:3000 tcp:127.0.0.1:3001"; got != want {
		t.Errorf("router\n got %s\nwant %s", got, want)
	}
	// The goroutine engine refuses --cpus: its fork-time mask places it.
	h = HopRelay{Engine: hop.Goroutine, CPUs: "1"}
	if got := strings.Join(h.Args("hoprelay", TCPAddr(0), TCPAddr(3000)), " "); strings.Contains(got, "--cpus") {
		t.Errorf("goroutine engine given --cpus: %s", got)
	}
}

func TestClientArgs(t *testing.T) {
	c := Client{Proto: ProtoMySQL, User: "root", Password: "secret", DB: "test", Command: "oltp-ro", Time: time.Second, Warmup: 100 * time.Millisecond}
	got := strings.Join(c.Args("pingpong", UNIXAddr("/w/r.sock"), 4), " ")
	want := "pingpong --target unix:/w/r.sock --proto mysql --threads 4 --time 1s --warmup 100ms --runs 1 --format json --io blocking --user root --command oltp-ro --db test"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	if strings.Contains(got, "secret") {
		t.Error("password on the command line")
	}
	if env := c.Env(); !slices.Equal(env, []string{"MYSQL_PWD=secret"}) {
		t.Errorf("env %q", env)
	}
	c.ConnectOnly = true
	if got := strings.Join(c.Args("pingpong", UNIXAddr("/w/r.sock"), 1), " "); !strings.HasSuffix(got, "--user root --db test --connect-only") || strings.Contains(got, "--command") {
		t.Errorf("connect-only: %s", got)
	}
	echo := Client{Proto: ProtoEcho, Size: 64, Time: time.Second, CPUs: "0"}
	if got := strings.Join(echo.Args("pingpong", TCPAddr(9), 1), " "); !strings.HasSuffix(got, "--format json --io blocking --size 64 --cpus 0") {
		t.Errorf("echo: %s", got)
	}
}
