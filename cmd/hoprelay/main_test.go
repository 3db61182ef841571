package main

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
)

// TestWakeWhy: every rule a relay's loops wait by has its own words, and
// those of the rules with figures say them: the CPUs the rule read and
// the polls' lengths.
func TestWakeWhy(t *testing.T) {
	seen := map[string]relay.WakeRule{}
	for rule := relay.WakeBySpin; rule <= relay.WakeRouter; rule++ {
		why := wakeWhy(rule, 3)
		if why == "" {
			t.Errorf("rule %d has no words", rule)
		}
		if r, ok := seen[why]; ok {
			t.Errorf("rules %d and %d both say %q", r, rule, why)
		}
		seen[why] = rule
	}
	for _, c := range []struct {
		rule relay.WakeRule
		cpus int
		has  []string
	}{
		{relay.WakeByAdaptive, 0, []string{relay.AdaptiveSpin.String()}},
		{relay.WakeAutoOwn, 1, []string{"1 CPU", relay.OwnSpin.String(), relay.OwnWindow.String(), "10%"}},
		{relay.WakeAutoFew, 2, []string{"2 CPUs", fmt.Sprintf("fewer than %d", relay.AdaptiveCPUs)}},
		{relay.WakeAutoMany, 8, []string{"8 CPUs", relay.AdaptiveSpin.String()}},
	} {
		why := wakeWhy(c.rule, c.cpus)
		for _, w := range c.has {
			if !strings.Contains(why, w) {
				t.Errorf("rule %d on %d CPUs: %q lacks %q", c.rule, c.cpus, why, w)
			}
		}
	}
	if why := wakeWhy(relay.WakeRuleNone, 4); why != "" {
		t.Errorf("no loops: %q, want nothing", why)
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		bad  bool
	}{
		{in: "65536", want: 65536},
		{in: "64K", want: 64 << 10},
		{in: "1m", want: 1 << 20},
		{in: "4KiB", want: 4 << 10},
		{in: "1G", want: 1 << 30},
		{in: "2G", bad: true},
		{in: "0", bad: true},
		{in: "-5", bad: true},
		{in: "K", bad: true},
	} {
		got, err := parseBytes(tc.in)
		if (err != nil) != tc.bad || (!tc.bad && got != tc.want) {
			t.Errorf("parseBytes(%q) = %v, %v", tc.in, got, err)
		}
	}
}

// TestUsageErrors: every flag value that makes no sense is an error that
// names the flag, and a usage error (exit status 2).
func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--engine", "threads", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "engine"},
		{[]string{"--lock", "big", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "lock"},
		{[]string{"--buffer", "lots", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--buffer"},
		{[]string{"--cpus", "a-b", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--cpus"},
		{[]string{"--workers", "0", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--workers"},
		{[]string{"--engine", "goroutine", "--spin", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "spin"},
		{[]string{"TCP4-LISTEN:x", "tcp:127.0.0.1:1"}, `bad port "x"`},
		{[]string{"tcp:127.0.0.1:0"}, "LISTEN CONNECT"},
		{[]string{"--balance", "random", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1", "tcp:127.0.0.1:2"}, "balance"},
		{[]string{"--retry", "0s", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--retry"},
		{[]string{"tcp:127.0.0.1:0", "tcp:127.0.0.1:1", "TCP-LISTEN:5"}, "listen address"},
		{[]string{"--route", "nat", "--user", "u", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--route"},
		{[]string{"--route", "rw", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--user NAME"},
		{[]string{"--user", "u", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "need --route"},
		{[]string{"--route", "conn", "--password", "p", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--password needs --user"},
		{[]string{"--route", "conn", "--users", "/nonexistent/users", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "--users"},
		{[]string{"--route", "rw", "--engine", "splice", "--user", "u", "tcp:127.0.0.1:0", "tcp:127.0.0.1:1"}, "engine epoll"},
	} {
		var out, errb bytes.Buffer
		err := run(tc.args, &out, &errb)
		if !cli.IsUsage(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v, want a usage error naming %q", tc.args, err, tc.want)
		}
	}
}

func FuzzParseBytes(f *testing.F) {
	for _, s := range []string{"64K", "1G", "512", "9999999999M"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if n, err := parseBytes(s); err == nil && (n <= 0 || n > 1<<30) {
			t.Fatalf("%q: %d", s, n)
		}
	})
}

// TestStatsCheckedFirst runs the binary: a --stats file that cannot be
// written stops hoprelay before it listens (exit 2, no "listening" line),
// not at SIGTERM after the run it was to describe.
func TestStatsCheckedFirst(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	cmd := exec.Command(peer.Hoplat(t, "hoprelay"), "--stats", "/nonexistent/dir/s.json", "tcp:127.0.0.1:0", "tcp:"+ln.Addr().String())
	var stderr strings.Builder
	cmd.Stderr = &stderr
	done := make(chan error, 1)
	var out []byte
	go func() {
		var err error
		out, err = cmd.Output()
		done <- err
	}()
	select {
	case err = <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("hoprelay still running 10s later: it listened")
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || len(out) != 0 {
		t.Errorf("%v, stdout %q; want exit status 2 before listening", err, out)
	}
	if want := "hoprelay: --stats /nonexistent/dir/s.json: cannot create files in /nonexistent/dir: "; !strings.HasPrefix(stderr.String(), want) {
		t.Errorf("stderr %q, want %q...", stderr.String(), want)
	}
}
