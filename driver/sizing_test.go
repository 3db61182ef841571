package driver

import (
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/present"
)

func TestSizedTime(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		least, perRequest time.Duration
		target            int
		cap               time.Duration
		want              time.Duration
		capped            bool
	}{
		// A point select: 1000 of them fit the least time many times over.
		{350 * ms, 30 * time.Microsecond, 1000, 0, 350 * ms, false},
		// An oltp-ro transaction against a database: 2.4 ms each.
		{350 * ms, 2400 * time.Microsecond, 1000, 0, 2400 * ms, false},
		{350 * ms, 2401 * time.Microsecond, 1000, 0, 2410 * ms, false}, // rounded up to 10 ms
		{350 * ms, 2400 * time.Microsecond, 1000, 1500 * ms, 1500 * ms, true},
		// A budget below the least time never shortens a round.
		{350 * ms, 2400 * time.Microsecond, 1000, 100 * ms, 350 * ms, true},
	} {
		got, capped := sizedTime(tc.least, tc.perRequest, tc.target, tc.cap)
		if got != tc.want || capped != tc.capped {
			t.Errorf("sizedTime(%v, %v, %d, %v) = %v, %v; want %v, %v", tc.least, tc.perRequest, tc.target, tc.cap, got, capped, tc.want, tc.capped)
		}
	}
}

func TestRoundCap(t *testing.T) {
	cfg := Config{Budget: 3 * time.Minute, Warmup: 100 * time.Millisecond}
	if got := roundCap(cfg, 100); got != 1700*time.Millisecond {
		t.Errorf("roundCap = %v, want 1.7s (1.8 s a step less its warm-up)", got)
	}
	if got := roundCap(Config{}, 100); got != 0 {
		t.Errorf("no budget: roundCap = %v, want 0", got)
	}
}

// A run whose requests are slow (the stand-in responder waits before each
// echo, as a database's transaction would) gets rounds long enough to
// hold the target, and the report says so; one whose requests are fast
// keeps the configured time.
//
// Which is which the test sets, not the machine: 100 requests of at least
// the 2 ms the responder waits need more than the 150 ms round; 10 plain
// echoes fit in it unless a round trip on loopback took 15 ms, three
// orders of magnitude above one on any machine, loaded or not.
func TestRunSizesRoundsFromARequestsCost(t *testing.T) {
	for _, tc := range []struct {
		service  time.Duration
		requests int
		longer   bool
	}{
		{0, 10, false},
		{2 * time.Millisecond, 100, true},
	} {
		cfg := shortConfig(t, hop.Direct, hop.Epoll)
		cfg.Transports = []hop.Transport{hop.TCP}
		cfg.RoundRequests = tc.requests
		cfg.Budget = time.Minute
		if tc.service > 0 {
			cfg.ServiceTimes = []time.Duration{tc.service}
		}
		rep := runClean(t, cfg)
		if len(rep.Config.RoundSizing) != 1 {
			t.Fatalf("service %v: round sizing %+v, want one stage's", tc.service, rep.Config.RoundSizing)
		}
		rs := rep.Config.RoundSizing[0]
		least := cfg.Time.Seconds()
		if tc.longer != (rs.TimeS > least) || rs.Path != "direct tcp" || rs.RequestUs <= 0 {
			t.Errorf("service %v: sizing %+v, want longer rounds than %v s: %v", tc.service, rs, least, tc.longer)
		}
		if tc.longer && rs.Expected < cfg.RoundRequests*9/10 {
			t.Errorf("service %v: a round holds %d requests, want about %d", tc.service, rs.Expected, cfg.RoundRequests)
		}
		var text strings.Builder
		present.WriteText(&text, rep)
		if !strings.Contains(text.String(), "rounds none: ") || !strings.Contains(text.String(), "a request took") {
			t.Errorf("service %v: text report does not say how the rounds were sized:\n%s", tc.service, text.String())
		}
	}
}
