package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/results/hop"
)

func writeTopology(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.conf")
	if err := os.WriteFile(p, []byte(src), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The file's settings apply as flags; the flags given override them.
func TestTopologyFlags(t *testing.T) {
	p := writeTopology(t, "HOST_APP=netns:app\nHOST_DB=netns:db\nSERVER_HOST=db\nPATHS=direct;epoll\nRUNS=4\nMAX_TIME=2\n")
	o, err := parseFlags([]string{"--topology", p, "--runs", "2"})
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if c.Hosts == nil || c.Hosts.HostOf("server").Name != "db" || c.Hosts.HostOf("client").Name != "app" {
		t.Fatalf("hosts %+v", c.Hosts)
	}
	if c.Rounds != 2 || c.Time != 2*time.Second || !slices.Equal(c.Relays, []hop.Relay{hop.Direct, hop.Epoll}) {
		t.Errorf("config %+v", c)
	}
	o, err = parseFlags([]string{"--topology=" + p})
	if err != nil || o.cfg.Rounds != 4 {
		t.Errorf("runs %d, %v", o.cfg.Rounds, err)
	}
	if o, _ := parseFlags(nil); o.cfg.Hosts != nil {
		t.Error("hosts without --topology")
	}
}

// PROXY_<NAME> is --proxy NAME=…, one per key, and the flag adds to them.
func TestTopologyProxies(t *testing.T) {
	p := writeTopology(t, "BACKEND=mysql://u:p@127.0.0.1:3306/db\nPROXY_MAXSCALE=tcp:127.0.0.1:4006\n"+
		"PROXY_NGINX='nginx -p {dir} -e stderr -c \"{dir}/x.conf\" --listen {listen} --to {upstream}'\n")
	o, err := parseFlags([]string{"--topology", p, "--proxy", "proxysql=tcp:127.0.0.1:6033"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range o.cfg.Proxies {
		got = append(got, x.Name+" "+x.Path().Name())
	}
	if want := []string{"maxscale maxscale tcp->tcp", "nginx nginx tcp->tcp", "proxysql proxysql tcp->tcp"}; !slices.Equal(got, want) {
		t.Errorf("proxies %q, want %q", got, want)
	}
	if x := o.cfg.Proxies[1]; !slices.Equal(x.Command, []string{"nginx", "-p", "{dir}", "-e", "stderr", "-c", "{dir}/x.conf", "--listen", "{listen}", "--to", "{upstream}"}) {
		t.Errorf("nginx's command %q", x.Command)
	}
	p = writeTopology(t, "BACKEND=mysql://u:p@127.0.0.1:3306/db\nPROXY_EPOLL=tcp:127.0.0.1:1\n")
	if _, err := parseFlags([]string{"--topology", p}); err == nil || !strings.Contains(err.Error(), "t.conf:2: PROXY_EPOLL") || !strings.Contains(err.Error(), "own paths") {
		t.Errorf("PROXY_EPOLL: %v", err)
	}
}

// A bad value in the file is a usage error naming the file and its line.
func TestTopologyFlagErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"RUNS=2\nPATHS=nginx\n", "t.conf:2: PATHS"},
		{"# x\nRELAY_LOCK=big\n", "t.conf:2: RELAY_LOCK"},
		{"HOST_DB=bogus:x\n", "t.conf:1"},
	} {
		p := writeTopology(t, tc.src)
		_, err := parseFlags([]string{"--topology", p})
		if err == nil || !strings.Contains(err.Error(), tc.want) || !cli.IsUsage(err) {
			t.Errorf("%q: error %v, want a usage error with %q", tc.src, err, tc.want)
		}
	}
	_, err := parseFlags([]string{"--topology", filepath.Join(t.TempDir(), "none.conf")})
	if err == nil || !strings.Contains(err.Error(), "none.conf") {
		t.Errorf("missing file: %v", err)
	}
	if _, err := parseFlags([]string{"--topology"}); err == nil {
		t.Error("--topology without a file")
	}
}
