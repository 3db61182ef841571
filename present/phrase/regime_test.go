package phrase

import (
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestRegimeNote(t *testing.T) {
	cpus := func(c, r, s string) []hop.ComponentCPUs {
		return []hop.ComponentCPUs{{Component: "client", CPUs: c}, {Component: "relay", CPUs: r}, {Component: "server", CPUs: s}}
	}
	for _, c := range []struct {
		places hop.RegimePlaces
		want   string
	}{
		{hop.RegimePlaces{Components: cpus("0", "0", "0")}, "client, relay and server on CPU 0"},
		{hop.RegimePlaces{Components: cpus("0", "1", "0")}, "client=0 relay=1 server=0 (client and server share CPU 0: fewer CPUs than components)"},
		{hop.RegimePlaces{Components: cpus("0", "1", "2")}, "client=0 relay=1 server=2"},
		{hop.RegimePlaces{Components: cpus("0", "1", "")}, "client=0 relay=1 server=any CPU"},
		{hop.RegimePlaces{Unpinned: true}, "unpinned: the scheduler places every process, and may place it differently from one round to the next"},
		{hop.RegimePlaces{Components: []hop.ComponentCPUs{{Component: "client", CPUs: "0"}, {Component: "relay", CPUs: "0"}},
			Server: &hop.ServerPlace{PID: 4242, Comm: "mysqld", CPUs: "1", Pinned: true}},
			"client and relay on CPU 0; server (mysqld 4242) on CPU 1, pinned by --backend-cpus"},
		{hop.RegimePlaces{Unpinned: true, Server: &hop.ServerPlace{PID: 7, CPUs: "0-3"}},
			"unpinned: the scheduler places every process, and may place it differently from one round to the next; server (process 7) on CPU 0-3, not pinned by hopbench"},
		{hop.RegimePlaces{Components: []hop.ComponentCPUs{{Component: "client", CPUs: "0"}, {Component: "relay", CPUs: "1"}},
			Server: &hop.ServerPlace{External: true, Why: "no process of this machine listens on 10.0.0.2:3306"}},
			"client=0 relay=1; server external (no process of this machine listens on 10.0.0.2:3306)"},
	} {
		if got := RegimeNote(&c.places); got != c.want {
			t.Errorf("got  %q\nwant %q", got, c.want)
		}
	}
}
