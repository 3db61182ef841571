package present

import (
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

// TestVerdictSentences: each kind of finding is said as the report has
// always said it; a difference within the noise gets "no measurable
// difference" and no verb that claims a direction.
func TestVerdictSentences(t *testing.T) {
	kernel := 20.0
	for _, c := range []struct {
		f          hop.Finding
		want, not  []string
		regimeBack bool
	}{
		{f: hop.Residence{Path: "epoll tcp->tcp", AddedUs: 30, RelayUs: 1580},
			want: []string{"epoll tcp->tcp: the relay holds a request 1580 µs on average", "does not split"}, not: []string{"-1"}, regimeBack: true},
		{f: hop.Residence{Path: "epoll tcp->tcp", AddedUs: 30, RelayUs: 10, KernelUs: &kernel},
			want: []string{"holds a request 10.0 µs of the 30.0 µs hop", "take the other 20.0 µs"}, regimeBack: true},
		{f: hop.IdleExitHops{Hops: []hop.IdleExitHop{{Relay: hop.Epoll, IdleUs: 30, RelayCPUUs: 6, AddedUs: 60}}},
			want: []string{"epoll 30.0 of 60.0 µs (relay's CPU 6.0)", "client's and server's CPU"}, regimeBack: true},
		{f: hop.IdleExitHops{Hops: []hop.IdleExitHop{{Relay: hop.Epoll, IdleUs: 30, RelayCPUUs: 24, AddedUs: 60}}, MostOnRelay: true},
			want: []string{"polling on a CPU of its own"}, regimeBack: true},
		{f: hop.UnixLeg{Relay: hop.Direct, CI95Us: [2]float64{-1, 1.5}},
			want: []string{"direct: UNIX socket instead of TCP: no measurable difference [95% CI -1.0, 1.5 µs]"}, not: []string{"saves", "costs"}, regimeBack: true},
		{f: hop.UnixLeg{Relay: hop.Epoll, Measurable: true, MedianUs: -4, CI95Us: [2]float64{-6, -2}, BaseUs: 40},
			want: []string{"epoll: UNIX client leg costs 4.0 µs (10% of the TCP path's p50) per request [95% CI 2.0, 6.0]"}, regimeBack: true},
		{f: hop.HopCosts{Unmeasurable: []hop.Relay{hop.Epoll}},
			want: []string{"no measurable difference from direct tcp: epoll"}, not: []string{"hop cost", "cheapest"}, regimeBack: true},
		{f: hop.Unstable{Path: "epoll tcp->tcp", Reason: "two modes", StealPct: 2.5},
			want: []string{"epoll tcp->tcp: unstable, its figures describe no single round: two modes; the hypervisor stole 2.5%"}},
		{f: hop.PathErrors{Path: "direct tcp", Threads: 2, Errors: 5, Failed: 1},
			want: []string{"direct tcp (2 threads): 5 errors (1 failed rounds among them)"}},
	} {
		lines, regime := verdict(c.f)
		all := strings.Join(lines, "\n")
		for _, w := range c.want {
			if !strings.Contains(all, w) {
				t.Errorf("%T: %q lacks %q", c.f, all, w)
			}
		}
		for _, n := range c.not {
			if strings.Contains(all, n) {
				t.Errorf("%T: %q says %q", c.f, all, n)
			}
		}
		if (regime != nil) != c.regimeBack {
			t.Errorf("%T: regime %v, want one: %v", c.f, regime, c.regimeBack)
		}
	}
}

// TestUnixLegLine: the one-screen UNIX-leg line reads as a sentence when
// no path shows a difference either way, and names the regime when there
// are several.
func TestUnixLegLine(t *testing.T) {
	none := [][]hop.UnixLeg{{{Regime: "packed", Relay: hop.Direct, CI95Us: [2]float64{-1, 1}}}}
	if got := unixLegLines(none, false); len(got) != 1 || got[0] != "a UNIX client leg makes no measurable difference on direct" {
		t.Errorf("got %q", got)
	}
	saves := [][]hop.UnixLeg{{{Regime: "packed", Relay: hop.Direct, Measurable: true, MedianUs: 5, CI95Us: [2]float64{4, 6}},
		{Regime: "packed", Relay: hop.Epoll, CI95Us: [2]float64{-1, 1}}}}
	if got := unixLegLines(saves, true); len(got) != 1 || got[0] != "packed: a UNIX client leg saves direct 5.0 µs [4.0, 6.0]; no measurable difference on epoll" {
		t.Errorf("got %q", got)
	}
}
