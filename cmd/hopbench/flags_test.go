package main

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/internal/cli"
)

func TestParseFlagsDefaults(t *testing.T) {
	o, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := o.cfg
	if c.Rounds != 7 || c.Discard != 1 || c.Time != 200*time.Millisecond || !slices.Equal(c.Threads, []int{1}) || o.format != "text" {
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
		{[]string{"--threads", "0"}, `--threads "0": want at least 1`},
		{[]string{"--threads", "1;2,,4"}, `--threads "1;2,,4": empty element`},
		{[]string{"--paths", "direct,,epoll"}, `--paths "direct,,epoll": empty element`},
		{[]string{"--paths", "nginx"}, `"nginx"`},
		{[]string{"--transports", "udp"}, `"udp"`},
		{[]string{"--time", "0s"}, `--time "0s": want a positive duration`},
		{[]string{"--runs", "2", "--discard", "2"}, `--discard "2": want 0 to 1`},
		{[]string{"--runs", "1", "--discard", "1"}, `--discard "1": want 0`},
		{[]string{"--discard", "7"}, `--discard "7": want 0 to 6, fewer than the 7 rounds`},
		{[]string{"--runs", "0"}, `--runs "0": want at least 1`},
		{[]string{"--format", "xml"}, `--format "xml": unknown format (want`},
		{[]string{"--relay-lock", "big"}, `--relay-lock "big": want none, conn or global`},
		{[]string{"--command", "drop"}, `--command "drop": want ping`},
		{[]string{"--backend", "pg://x"}, "--backend"},
		{[]string{"--service-time", "fast"}, `--service-time "fast": bad duration`},
		{[]string{"--placement", "gpu=0"}, `--placement "gpu=0": unknown component "gpu"`},
		{[]string{"--placement", "client=x"}, "--placement"},
		{[]string{"--hops", "-1"}, `--hops "-1": a negative number`},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--bogus"}, "bogus"},
		{[]string{"--proxy", "epoll=tcp:127.0.0.1:1"}, `--proxy "epoll=tcp:127.0.0.1:1": proxy "epoll": names one of hopbench's own paths`},
		{[]string{"--proxy", "ngx=nginx -c x.conf"}, "never says {listen}"},
		{[]string{"--proxy", "ngx=tcp:127.0.0.1:1"}, "--backend mysql://"},
		{[]string{"--backend", "mysql://u:p@h:1/d", "--proxy", "a=tcp:127.0.0.1:1", "--proxy", "a=tcp:127.0.0.1:2"}, "given twice"},
		{[]string{"--backend", "mysql://u:secret-pw@h:1/d;pg://x"}, `--backend "mysql://u:xxxxx@h:1/d;pg://x": `},
		{[]string{"--proto", "echo", "--rows", "1,2"}, `--rows "1,2": rows shape mysql results`},
	} {
		_, err := parseFlags(tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !cli.IsUsage(err) {
			t.Errorf("%v: error %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// Each message names a flag and its value once, with no package's name
// and no flag the user did not type: --runs 1 keeps its one round rather
// than refusing over --discard's default.
func TestParseFlagsReadOnce(t *testing.T) {
	o, err := parseFlags([]string{"--runs", "1"})
	if err != nil || o.cfg.Rounds != 1 || o.cfg.Discard != 0 {
		t.Errorf("--runs 1: rounds %d discard %d, %v; want 1 round kept", o.cfg.Rounds, o.cfg.Discard, err)
	}
	for _, args := range [][]string{{"--threads", "0"}, {"--hops", "-1"}, {"--format", "xml"}, {"--command", "drop"},
		{"--relay-lock", "big"}, {"--paths", "nginx"}, {"--placement", "client=x"}, {"--backend-cpus", "99999"}} {
		_, err := parseFlags(args)
		if err == nil {
			t.Errorf("%v: no error", args)
			continue
		}
		msg := err.Error()
		if want := args[0] + " " + strconv.Quote(args[1]) + ": "; !strings.HasPrefix(msg, want) || strings.Count(msg, args[0]) != 1 {
			t.Errorf("%v: %q, want it to begin %q and name the flag once", args, msg, want)
		}
		for _, pkg := range []string{"list", "results", "relay", "mysql", "driver", "affinity", "hop", "pingpong"} {
			if strings.Contains(msg, pkg+": ") {
				t.Errorf("%v: %q names package %s", args, msg, pkg)
			}
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
