package driver

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/results/hop"
	"github.com/hoplat/hoplat/results/stats"
)

// Every progress line fits the width, whatever the message: a long one
// wraps at spaces under its first line, and the words come through whole.
func TestProgressFitsTheWidth(t *testing.T) {
	long := strings.Repeat("a reply stalled past the end of its round ", 8)
	for _, level := range []ProgressLevel{ProgressRounds, ProgressLive, ProgressPaths} {
		var out bytes.Buffer
		p := newProgress(&out, level, 4, time.Second)
		p.say("machine: %s", long)
		c := Cell{Path: hop.Path{Relay: hop.Goroutine, Client: hop.UNIX, Upstream: hop.TCP, Hops: 1}, Threads: 128}
		p.begin(Stage{Regime: RegimeSpread}, 1, 2, Step{Round: 0, Cell: 11}, 7, 1, 12, c)
		p.end(hop.Sample{TPS: 1234567, Latency: stats.Latency{P50: 12345.6, P95: 123456.7}, Errors: 1234})
		p.begin(Stage{Regime: RegimeSpread}, 1, 2, Step{Round: 0, Cell: 10}, 7, 1, 12, c)
		p.end(hop.Sample{Failed: long})
		p.finish()
		text := strings.ReplaceAll(out.String(), "\r\033[K", "\n")
		for _, line := range strings.Split(text, "\n") {
			if n := len([]rune(line)); n > progressWidth {
				t.Errorf("level %d: line of %d columns: %q", level, n, line)
			}
		}
		if got := strings.Join(strings.Fields(strings.ReplaceAll(text, "hopbench:", "")), " "); !strings.Contains(got, strings.TrimSpace(long)) {
			t.Errorf("level %d: the long message lost words:\n%s", level, out.String())
		}
		if !strings.Contains(text, "stage 2/2 spread round 1/7 (warm-up): 12 paths") {
			t.Errorf("level %d: no round line:\n%s", level, text)
		}
	}
}
