package driver

import (
	"slices"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestDefaultPaths(t *testing.T) {
	var names []string
	for _, p := range DefaultPaths(hop.DefaultRelays, []hop.Transport{hop.TCP, hop.UNIX}) {
		names = append(names, p.Name())
	}
	want := []string{
		"direct tcp", "direct unix",
		"goroutine tcp->tcp", "goroutine unix->tcp",
		"epoll tcp->tcp", "epoll unix->tcp",
		"splice tcp->tcp", "splice unix->tcp", "sockmap tcp->tcp",
		"socat tcp->tcp", "socat unix->tcp",
		"haproxy tcp->tcp",
	}
	if !slices.Equal(names, want) {
		t.Errorf("default paths\n got %q\nwant %q", names, want)
	}
	if got := DefaultPaths([]hop.Relay{hop.MySQLConn, hop.MySQLRW}, []hop.Transport{hop.UNIX}); len(got) != 2 || got[1].Name() != "mysql-rw unix->tcp" {
		t.Errorf("router paths, asked for by name: %v", got)
	}
	if got := DefaultPaths([]hop.Relay{hop.Direct, hop.Epoll}, []hop.Transport{hop.UNIX}); len(got) != 2 || got[1].Name() != "epoll unix->tcp" {
		t.Errorf("filtered: %v", got)
	}
}

func TestChainPaths(t *testing.T) {
	var names []string
	for _, p := range ChainPaths([]hop.Relay{hop.Direct, hop.Epoll, hop.HAProxy, hop.Socat}, []hop.Transport{hop.TCP}, []int{0, 1, 3}) {
		names = append(names, p.Name())
	}
	want := []string{"direct tcp", "epoll tcp->tcp", "epoll tcp->tcp x3", "socat tcp->tcp", "socat tcp->tcp x3"}
	if !slices.Equal(names, want) {
		t.Errorf("chain paths\n got %q\nwant %q", names, want)
	}
}
