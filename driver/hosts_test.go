package driver

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/roles"
)

func topology(t *testing.T, src string) *hosts.TopologyFile {
	t.Helper()
	tp, err := hosts.ParseTopology("t.conf", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

// Without a topology every address and command line is the loopback
// run's; with one, a listener another host dials binds its host's
// address, and a UNIX socket is offered only on its own host.
func TestHostBedAddresses(t *testing.T) {
	var none *hostBed
	if a := none.tcpAt(roles.Server, 7); a != TCPAddr(7) {
		t.Errorf("no topology: %v", a)
	}
	if argv, err := none.argv(roles.Client, []string{"pingpong"}); err != nil || len(argv) != 1 {
		t.Errorf("no topology: argv %q %v", argv, err)
	}
	if !none.reaches(Backend{}, hop.DirectPath(hop.UNIX), UNIXAddr("/x")) {
		t.Error("no topology: reach changed")
	}
	if why := none.noSocket(Backend{}, hop.DirectPath(hop.UNIX), "w"); why != "w" {
		t.Errorf("no topology: reason %q", why)
	}
	hb := &hostBed{
		on:   map[string]string{roles.Client: "app", roles.Relay: "app", roles.Server: "db", hosts.Backend: "db"},
		kind: map[string]hosts.Kind{"app": hosts.NetNS, "db": hosts.NetNS},
		addr: map[string]string{"app": "10.77.0.1", "db": "10.77.0.2"},
	}
	if a := hb.tcpAt(roles.Server, 0); a.Host != "10.77.0.2" {
		t.Errorf("server dialled from app binds %v", a)
	}
	if a := hb.tcpAt(roles.Relay, 5); a != TCPAddr(5) {
		t.Errorf("relay dialled only from its own host binds %v", a)
	}
	relayUNIX := hop.Path{Relay: hop.Epoll, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}
	if hb.reaches(Backend{}, hop.DirectPath(hop.UNIX), UNIXAddr("/x")) || !hb.reaches(Backend{}, relayUNIX, TCPAddr(1)) {
		t.Error("reach across hosts")
	}
	if why := hb.noSocket(Backend{}, hop.DirectPath(hop.UNIX), "w"); !strings.Contains(why, "client runs on host app and the server on host db") {
		t.Errorf("reason %q", why)
	}
	for _, h := range []string{"10.0.0.2", "[::1]", "db.example"} {
		want := strings.Trim(h, "[]")
		if h == "db.example" {
			want = "0.0.0.0"
		}
		if got := sshListenHost(h); got != want {
			t.Errorf("ssh listen host for %s: %s, want %s", h, got, want)
		}
	}
}

// A topology of this machine alone runs as the loopback run does, and the
// report names the host and where each path's components ran.
func TestRunTopologyLocal(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Rounds, cfg.Discard = 2, 0
	cfg.Hosts = topology(t, "HOST_APP=local\n")
	rep := runClean(t, cfg)
	if len(rep.Hosts) != 1 || rep.Hosts[0].Name != "app" || rep.Hosts[0].Kind != "local" || rep.Hosts[0].Address != "127.0.0.1" ||
		rep.Hosts[0].Env == nil || rep.Hosts[0].Env.Cores < 1 {
		t.Errorf("hosts %+v", rep.Hosts)
	}
	if len(rep.Paths) != 4 {
		t.Fatalf("%d paths", len(rep.Paths))
	}
	for _, p := range rep.Paths {
		h := p.Hosts
		if p.TPS <= 0 || h == nil || h.Client != "app" || h.Server != "app" || (h.Relay == "") != (p.Relay == hop.Direct) {
			t.Errorf("%s: tps %v hosts %+v", p.Name, p.TPS, h)
		}
	}
}

// hopbench starts the client and relays itself; on an ssh host it cannot,
// and says so at the file's line before bringing anything up.
func TestRunTopologyClientOnSSH(t *testing.T) {
	cfg := shortConfig(t, hop.Direct)
	cfg.Hosts = topology(t, "HOST_A=local\nHOST_B=ssh://me@192.0.2.1\nCLIENT_HOST=b\nSERVER_HOST=b\n")
	_, err := Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "t.conf:3: CLIENT_HOST") || !strings.Contains(err.Error(), "ssh host") {
		t.Errorf("error %v", err)
	}
}

// Two namespaces, as MXS-1515's two servers: the client and every relay
// in app, the responder in db. socat and HAProxy, which print no readiness
// line, are probed from inside app.
func TestRunTopologyNetns(t *testing.T) {
	peer.Root(t, "netns hosts need root")
	peer.Require(t, "ip")
	peer.Require(t, "socat")
	peer.Require(t, "haproxy")
	cfg := shortConfig(t, hop.Direct, hop.Epoll, hop.Socat, hop.HAProxy)
	cfg.Rounds, cfg.Discard = 2, 0
	cfg.Locate = fakeLocator(fakeBin(t), true)
	cfg.Hosts = topology(t, "HOST_APP=netns:app\nHOST_DB=netns:db\nSERVER_HOST=db\n")
	rep := runClean(t, cfg)
	names := map[string]bool{}
	for _, p := range rep.Paths {
		names[p.Name] = true
		if p.TPS <= 0 || p.Failed != 0 || p.Hosts == nil || p.Hosts.Server != "db" {
			t.Errorf("%s: tps %v failed %d hosts %+v %+v", p.Name, p.TPS, p.Failed, p.Hosts, p.Rounds)
		}
	}
	for _, want := range []string{"direct tcp", "epoll unix->tcp", "socat tcp->tcp", "socat unix->tcp", "haproxy tcp->tcp"} {
		if !names[want] {
			t.Errorf("no row for %s (skipped %+v)", want, rep.Skipped)
		}
	}
	if len(rep.Skipped) != 1 || rep.Skipped[0].Path != "direct unix" {
		t.Errorf("skipped %+v", rep.Skipped)
	}
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	if prefix := "hoplat-" + strconv.Itoa(os.Getpid()) + "-"; strings.Contains(string(out), prefix) {
		t.Errorf("namespaces left: %s", out)
	}
}
