package main

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/results/hop"
)

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if c.Rounds != 7 || c.Discard != 1 || c.Time != 250*time.Millisecond || !slices.Equal(c.Threads, []int{1}) || o.format != "text" {
		t.Errorf("defaults %+v", c)
	}
	if !c.Backend.Embedded() || len(c.Hops) != 0 || c.Progress == nil {
		t.Errorf("defaults %+v", c)
	}
}

func TestParseFlagsExperiments(t *testing.T) {
	o, err := parseFlags([]string{
		"--paths", "direct,epoll", "--transports", "tcp", "--hops", "0-3", "--threads", "1;2;4",
		"--service-time", "0,20us,1ms", "--rows", "1,1000", "--relay-lock", "global", "--stats",
		"--format", "json", "--out", "/tmp/x", "--runs", "3", "--discard", "0", "-q",
	})
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if !slices.Equal(c.Relays, []hop.Relay{hop.Direct, hop.Epoll}) || !slices.Equal(c.Transports, []hop.Transport{hop.TCP}) {
		t.Errorf("paths %v transports %v", c.Relays, c.Transports)
	}
	if !slices.Equal(c.Hops, []int{0, 1, 2, 3}) || !slices.Equal(c.Threads, []int{1, 2, 4}) || len(c.ServiceTimes) != 3 || !slices.Equal(c.Rows, []int{1, 1000}) {
		t.Errorf("sweeps %+v", c)
	}
	if c.RelayLock != "global" || !c.Stats || o.format != "json" || o.out != "/tmp/x" || c.Rounds != 3 || c.Discard != 0 || c.Progress != nil {
		t.Errorf("options %+v", o)
	}
}

// Every flag value that makes no sense is an error naming the flag and the
// value (run turns it into exit status 2).
func TestParseFlagsRejects(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--threads", "0"}, `--threads "0": 0: want at least 1`},
		{[]string{"--threads", "1;2,,4"}, `--threads "1;2,,4": empty element`},
		{[]string{"--paths", "direct,,epoll"}, `--paths "direct,,epoll": empty element`},
		{[]string{"--paths", "nginx"}, `"nginx"`},
		{[]string{"--transports", "udp"}, `"udp"`},
		{[]string{"--time", "0s"}, "--time 0s"},
		{[]string{"--runs", "2", "--discard", "2"}, "--discard 2"},
		{[]string{"--format", "xml"}, `--format: results: unknown format "xml"`},
		{[]string{"--relay-lock", "big"}, `--relay-lock: relay: lock "big"`},
		{[]string{"--command", "drop"}, `--command: mysql: parse command "drop"`},
		{[]string{"--backend", "pg://x"}, "--backend"},
		{[]string{"--service-time", "fast"}, `--service-time "fast": bad duration "fast"`},
		{[]string{"--placement", "gpu=0"}, `placement "gpu=0": unknown component "gpu"`},
		{[]string{"--placement", "client=x"}, "--placement"},
		{[]string{"--hops", "-1"}, `--hops "-1": bad number ""`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"--proxy", "epoll=tcp:127.0.0.1:1"}, `--proxy: driver: proxy "epoll": names one of hopbench's own paths`},
		{[]string{"--proxy", "ngx=nginx -c x.conf"}, "never says {listen}"},
		{[]string{"--proxy", "ngx=tcp:127.0.0.1:1"}, "--backend mysql://"},
		{[]string{"--backend", "mysql://u:p@h:1/d", "--proxy", "a=tcp:127.0.0.1:1", "--proxy", "a=tcp:127.0.0.1:2"}, "given twice"},
	} {
		_, err := parseFlags(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !cli.IsUsage(err) {
			t.Errorf("%v: error %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

func TestParseFlagsPlacementNone(t *testing.T) {
	o, err := parseFlags([]string{"--placement", "none"})
	if err != nil {
		t.Fatal(err)
	}
	if len(o.cfg.Regimes) != 1 || o.cfg.Regimes[0].Name != driver.RegimeNone {
		t.Errorf("--placement none: regimes %+v", o.cfg.Regimes)
	}
	if o, _ := parseFlags(nil); o.cfg.Regimes != nil || o.cfg.Placement.String() != "" {
		t.Errorf("no --placement: regimes %+v placement %q, want the defaults", o.cfg.Regimes, o.cfg.Placement)
	}
}
