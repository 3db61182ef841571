package proxyconf

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/roles"
)

func TestHopRelayArgsCluster(t *testing.T) {
	h := HopRelay{Engine: roles.Epoll}
	got := strings.Join(h.Args("hoprelay", tcp(0), tcp(3306), tcp(3307)), " ")
	if want := "hoprelay --engine epoll tcp:127.0.0.1:0 tcp:127.0.0.1:3306 tcp:127.0.0.1:3307"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
}

func TestHopRelayArgs(t *testing.T) {
	h := HopRelay{Engine: roles.Epoll, Lock: "global", Stats: "/w/s.json", CPUs: "1"}
	got := strings.Join(h.Args("hoprelay", tcp(0), tcp(3000)), " ")
	want := "hoprelay --engine epoll --lock global --stats /w/s.json --cpus 1 tcp:127.0.0.1:0 tcp:127.0.0.1:3000"
	if got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	// The goroutine and sockmap engines refuse --cpus: the fork-time mask
	// places them.
	for _, e := range []string{roles.Goroutine, roles.Sockmap} {
		h = HopRelay{Engine: e, CPUs: "1"}
		if got := strings.Join(h.Args("hoprelay", tcp(0), tcp(3000)), " "); strings.Contains(got, "--cpus") {
			t.Errorf("%s engine given --cpus: %s", e, got)
		}
	}
}
