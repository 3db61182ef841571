package driver

import (
	"slices"
	"testing"
)

func TestDefaultPaths(t *testing.T) {
	var names []string
	for _, p := range DefaultPaths(Relays, []Transport{TCP, UNIX}) {
		names = append(names, p.Name())
	}
	want := []string{
		"direct tcp", "direct unix",
		"goroutine tcp->tcp", "goroutine unix->tcp",
		"epoll tcp->tcp", "epoll unix->tcp",
		"splice tcp->tcp", "splice unix->tcp",
		"socat tcp->tcp", "socat unix->tcp",
		"haproxy tcp->tcp",
	}
	if !slices.Equal(names, want) {
		t.Errorf("default paths\n got %q\nwant %q", names, want)
	}
	if got := DefaultPaths([]Relay{Direct, Epoll}, []Transport{UNIX}); len(got) != 2 || got[1].Name() != "epoll unix->tcp" {
		t.Errorf("filtered: %v", got)
	}
}

func TestChainPaths(t *testing.T) {
	var names []string
	for _, p := range ChainPaths([]Relay{Direct, Epoll, HAProxy, Socat}, []Transport{TCP}, []int{0, 1, 3}) {
		names = append(names, p.Name())
	}
	want := []string{"direct tcp", "epoll tcp->tcp", "epoll tcp->tcp x3", "socat tcp->tcp", "socat tcp->tcp x3"}
	if !slices.Equal(names, want) {
		t.Errorf("chain paths\n got %q\nwant %q", names, want)
	}
}

func TestBaseline(t *testing.T) {
	p := Path{Relay: Epoll, Client: UNIX, Upstream: TCP, Hops: 1}
	if b := p.Baseline(); b != DirectPath(UNIX) || b.Name() != "direct unix" {
		t.Errorf("baseline of %s = %s", p.Name(), b.Name())
	}
}

func TestParseRelayTransport(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Relay
		ok   bool
	}{
		{"direct", Direct, true}, {"none", Direct, true}, {"EPOLL", Epoll, true},
		{" socat ", Socat, true}, {"haproxy", HAProxy, true}, {"nginx", "", false}, {"", "", false},
	} {
		got, err := ParseRelay(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseRelay(%q) = %q, %v", tc.in, got, err)
		}
	}
	if _, err := ParseTransport("udp"); err == nil {
		t.Error("udp accepted")
	}
	if tr, err := ParseTransport("UNIX"); err != nil || tr != UNIX {
		t.Errorf("UNIX: %v %v", tr, err)
	}
}
