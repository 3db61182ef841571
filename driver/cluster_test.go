package driver

import (
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/pingpong/mysql"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// TestBuildCluster: with a backend of three MySQL servers (pongd's mock,
// each its own process) the hoprelay and HAProxy paths balance over all
// three, socat's is skipped with the reason, and once one server stops
// every new login through either still succeeds.
func TestBuildCluster(t *testing.T) {
	haproxy := peer.Require(t, "haproxy")
	bins := map[string]string{"pongd": peer.Hoplat(t, "pongd"), "hoprelay": peer.Hoplat(t, "hoprelay"), "haproxy": haproxy, "socat": "/bin/true"}
	locate := func(name string) (string, error) { return bins[name], nil }

	var servers []*hosts.Process
	var addrs []sockets.Addr
	for i := range 3 {
		r := Responder{Proto: ProtoMySQL, User: "hoplat", Password: "hoplat"}
		p, err := hosts.Start(hosts.Command{Name: "pongd", Argv: r.Args(bins["pongd"], []sockets.Addr{TCPAddr(0)})})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Stop() })
		a, err := p.Listening(t.Context(), 1, ReadyTimeout)
		if err != nil {
			t.Fatalf("server %d: %v", i, err)
		}
		servers = append(servers, p)
		addrs = append(addrs, a[0])
	}
	backend := Backend{URL: "mysql://hoplat:hoplat@cluster/", TCP: &addrs[0], Servers: addrs, User: "hoplat", Password: "hoplat"}
	epoll := hop.Path{Relay: hop.Epoll, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	haproxyPath := hop.Path{Relay: hop.HAProxy, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	socat := hop.Path{Relay: hop.Socat, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	topo, err := Build(t.Context(), TopologySpec{Backend: backend, Paths: []hop.Path{hop.DirectPath(hop.TCP), epoll, haproxyPath, socat}, Stats: true, Locate: locate})
	if err != nil {
		t.Fatal(err)
	}
	defer topo.Stop()
	if len(topo.Skipped) != 1 || topo.Skipped[0].Path != socat.Name() || !strings.Contains(topo.Skipped[0].Reason, "cluster of 3") {
		t.Errorf("skipped %+v, want socat's path, for the cluster", topo.Skipped)
	}
	if got := topo.Entries[hop.DirectPath(hop.TCP)]; got != addrs[0] {
		t.Errorf("direct path dials %v, want the first server %v", got, addrs[0])
	}
	cfg, err := os.ReadFile(topo.Dir + "/haproxy.cfg")
	if err != nil || !strings.Contains(string(cfg), "balance roundrobin") || !strings.Contains(string(cfg), "option mysql-check") || strings.Count(string(cfg), " check inter 2s") != 3 {
		t.Errorf("haproxy.cfg (%v):\n%s", err, cfg)
	}

	login := func(p hop.Path) error {
		c, err := net.DialTimeout("tcp", topo.Entries[p].NetAddr(), 5*time.Second)
		if err != nil {
			return err
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		_, err = mysql.Connect(c, mysql.ClientConfig{User: "hoplat", Password: "hoplat"}, false)
		return err
	}
	for _, p := range []hop.Path{epoll, haproxyPath} {
		for i := range 6 {
			if err := login(p); err != nil {
				t.Fatalf("%s: login %d: %v", p.Name(), i, err)
			}
		}
	}
	ups := relayUpstreams(t, topo, epoll)
	for i, u := range ups {
		if u.Connections != 2 {
			t.Errorf("epoll: upstream %d had %d connections of 6, want 2: %+v", i, u.Connections, ups)
		}
	}

	if err := servers[1].Stop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []hop.Path{epoll, haproxyPath} {
		for i := range 6 {
			if err := login(p); err != nil {
				t.Errorf("%s: login %d after a server stopped: %v", p.Name(), i, err)
			}
		}
	}
	ups = relayUpstreams(t, topo, epoll)
	if ups[1].Connections != 2 || ups[1].Failed < 1 || ups[0].Connections+ups[2].Connections != 10 {
		t.Errorf("epoll after server 1 stopped: %+v, want its refusals counted and the 6 logins on the others", ups)
	}
}

// relayUpstreams reads the hoprelay of path p's per-upstream counts now.
func relayUpstreams(t *testing.T, topo *Topology, p hop.Path) []relay.UpstreamStats {
	t.Helper()
	files := topo.Stats[p]
	if _, err := topo.snapshotStatsOf(t.Context(), files); err != nil || len(files) != 1 {
		t.Fatalf("stats of %s %v: %v", p.Name(), files, err)
	}
	var s relay.Snapshot
	b, err := os.ReadFile(files[0])
	if err == nil {
		err = json.Unmarshal(b, &s)
	}
	if err != nil || len(s.Upstreams) != 3 {
		t.Fatalf("stats of %s: %v\n%s", p.Name(), err, b)
	}
	return s.Upstreams
}
