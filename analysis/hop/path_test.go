package hop

import (
	"slices"
	"testing"
)

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

// The verdicts speak of a user's proxy (hopbench --proxy) after
// hopbench's own relays.
func TestRelaysInNamesProxies(t *testing.T) {
	g := map[Path]PathResult{
		{Relay: Epoll, Client: TCP, Upstream: TCP, Hops: 1}:      {},
		{Relay: "nginx", Client: TCP, Upstream: TCP, Hops: 1}:    {},
		{Relay: "maxscale", Client: TCP, Upstream: TCP, Hops: 1}: {},
		DirectPath(TCP): {},
	}
	got := relaysIn(g)
	want := append(append([]Relay{}, Relays[1:]...), "maxscale", "nginx")
	if !slices.Equal(got, want) {
		t.Errorf("relaysIn = %v, want %v", got, want)
	}
}
