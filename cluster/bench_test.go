package cluster

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/sockets"
)

func TestPickMedian(t *testing.T) {
	r := Row{Runs: []Result{{TPS: 30}, {TPS: 10}, {TPS: 20}, {TPS: 40}}, runConns: [][]int64{{3}, {1}, {2}, {4}}}
	r.pickMedian()
	if r.Result.TPS != 20 || r.NodeConnections[0] != 2 {
		t.Errorf("median of 4: got %v %v, want the lower middle, 20", r.Result.TPS, r.NodeConnections)
	}
	r = Row{Runs: []Result{{TPS: 5}}, runConns: [][]int64{{9}}}
	r.pickMedian()
	if r.Result.TPS != 5 {
		t.Errorf("one run: got %v", r.Result.TPS)
	}
}

// A relay path's hoprelay listens on every address of the app namespace
// and connects round-robin to every node with TCP_NODELAY.
func TestRelayArgs(t *testing.T) {
	var nodes []sockets.Addr
	for _, s := range []string{"tcp:10.77.0.2:3306", "tcp:10.77.0.3:3306"} {
		a, err := sockets.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		a.Opts.NoDelay = sockets.On
		nodes = append(nodes, a)
	}
	got := strings.Join(relayArgs("hoprelay", "epoll", 4002, nodes), " ")
	if want := "hoprelay --engine epoll tcp4-listen:4002,reuseaddr tcp:10.77.0.2:3306,nodelay tcp:10.77.0.3:3306,nodelay"; got != want {
		t.Errorf("\n got %s\nwant %s", got, want)
	}
	for _, s := range strings.Fields(got)[3:] {
		if _, err := sockets.Parse(s); err != nil {
			t.Errorf("hoprelay could not read %q: %v", s, err)
		}
	}
}
