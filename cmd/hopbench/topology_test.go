package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/cli"
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

// A LIST reads the same from a flag and from the topology file's key for
// it (both through internal/list): the same values, or the same error
// naming the value typed, after the flag's name or the file's line and key.
func TestListFlagAndFileAgree(t *testing.T) {
	for _, tc := range []struct {
		flag, key, value string
		want             []int // nil for an error
		err              string
	}{
		{"threads", "THREADS", "1-2", []int{1, 2}, ""},
		{"threads", "THREADS", "1,2;3", []int{1, 2, 3}, ""},
		{"threads", "THREADS", "1;3", []int{1, 3}, ""},
		{"threads", "THREADS", " 2 ; 1-2 ", []int{2, 1, 2}, ""},
		{"threads", "THREADS", "0", nil, `"0": want at least 1`},
		{"threads", "THREADS", "1,,2", nil, `"1,,2": empty element`},
		{"threads", "THREADS", "1;x", nil, `"1;x": bad number "x"`},
		{"threads", "THREADS", "3-1", nil, `"3-1": end before start`},
		{"hops", "HOPS", "0-2;4", []int{0, 1, 2, 4}, ""},
		{"hops", "HOPS", "-1", nil, `"-1": a negative number or a range with no start (ranges read LO-HI, as 1-4)`},
		{"size", "SIZE", "64,1024;4096", []int{64, 1024, 4096}, ""},
		{"rows", "ROWS", "0-1", []int{0, 1}, ""},
	} {
		field := func(o options) []int {
			switch tc.flag {
			case "threads":
				return o.cfg.Threads
			case "hops":
				return o.cfg.Hops
			case "size":
				return o.cfg.Sizes
			}
			return o.cfg.Rows
		}
		byFlag, flagErr := parseFlags([]string{"--" + tc.flag, tc.value})
		byFile, fileErr := parseFlags([]string{"--topology", writeTopology(t, tc.key+"='"+tc.value+"'\n")})
		if tc.want != nil {
			if flagErr != nil || fileErr != nil || !slices.Equal(field(byFlag), tc.want) || !slices.Equal(field(byFile), tc.want) {
				t.Errorf("--%s %q: %v, %v; %s: %v, %v; want %v for both", tc.flag, tc.value, field(byFlag), flagErr,
					tc.key, field(byFile), fileErr, tc.want)
			}
			continue
		}
		wantFlag := "--" + tc.flag + " " + tc.err
		if flagErr == nil || flagErr.Error() != wantFlag {
			t.Errorf("--%s %q: error %v, want %s", tc.flag, tc.value, flagErr, wantFlag)
		}
		wantFile := "t.conf:1: " + tc.key + ": " + tc.err
		if fileErr == nil || !strings.HasSuffix(fileErr.Error(), wantFile) {
			t.Errorf("%s=%q: error %v, want …%s", tc.key, tc.value, fileErr, wantFile)
		}
	}
}
