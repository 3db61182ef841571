package proxyconf

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/sockets"
)

func tcp(port int) sockets.Addr { return sockets.Addr{Network: "tcp", Host: "127.0.0.1", Port: port} }

func unix(path string) sockets.Addr { return sockets.Addr{Network: "unix", Path: path} }

func TestHAProxy(t *testing.T) {
	cfg := HAProxy([]HAProxyRoute{
		{Name: "haproxy tcp->tcp", Listen: tcp(4008), Connect: []sockets.Addr{tcp(3000)}},
		{Name: "haproxy unix->tcp", Listen: unix("/w/h.sock"), Connect: []sockets.Addr{unix("/w/pongd.sock")}},
	})
	for _, want := range []string{
		"global\n\tnbthread 1\n",
		"defaults\n\tmode tcp\n",
		"timeout connect", "timeout client", "timeout server",
		"frontend f_p0_haproxy_tcp__tcp\n\tbind 127.0.0.1:4008\n\tdefault_backend b_p0_haproxy_tcp__tcp\n",
		"backend b_p0_haproxy_tcp__tcp\n\tserver s0 127.0.0.1:3000\n",
		"frontend f_p1_haproxy_unix__tcp\n\tbind /w/h.sock\n",
		"\tserver s0 /w/pongd.sock\n",
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
}

// A cluster's route balances round-robin with MySQL checks, as the field
// notes' Galera set-up does; a route to one server has no checks.
func TestHAProxyCluster(t *testing.T) {
	servers := []sockets.Addr{tcp(3306), tcp(3307), tcp(3308)}
	cfg := HAProxy([]HAProxyRoute{
		{Name: "haproxy tcp->tcp", Listen: tcp(4008), Connect: servers, MySQL: true, CheckUser: "haproxy_check"},
		{Name: "haproxy tcp->tcp packed", Listen: tcp(4009), Connect: servers[:2], MySQL: true},
	})
	for _, want := range []string{
		"backend b_p0_haproxy_tcp__tcp\n\tbalance roundrobin\n\toption redispatch 1\n\tretries 3\n\toption mysql-check user haproxy_check\n" +
			"\tserver s0 127.0.0.1:3306 check inter 2s\n\tserver s1 127.0.0.1:3307 check inter 2s\n\tserver s2 127.0.0.1:3308 check inter 2s\n",
		"\toption mysql-check\n\tserver s0 127.0.0.1:3306 check inter 2s\n\tserver s1 127.0.0.1:3307 check inter 2s\n\n",
	} {
		if !strings.Contains(cfg+"\n", want) {
			t.Errorf("config lacks %q:\n%s", want, cfg)
		}
	}
	if one := HAProxy([]HAProxyRoute{{Name: "x", Listen: tcp(1), Connect: servers[:1], MySQL: true}}); strings.Contains(one, "check") {
		t.Errorf("a route to one server is checked:\n%s", one)
	}
}

func TestSectionName(t *testing.T) {
	if got := SectionName("epoll unix->tcp packed"); got != "epoll_unix__tcp_packed" {
		t.Errorf("got %q", got)
	}
}
