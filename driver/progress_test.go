package driver

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/stats"
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
		p.begin(roundAt{st: Stage{Regime: RegimeSpread}, stage: 1, stages: 2, step: Step{Round: 0, Cell: 11}, rounds: 7, discard: 1, cells: 12}, c)
		p.end(hop.Sample{TPS: 1234567, Latency: stats.Latency{P50: 12345.6, P95: 123456.7}, Errors: 1234})
		p.begin(roundAt{st: Stage{Regime: RegimeSpread}, stage: 1, stages: 2, step: Step{Round: 0, Cell: 10}, rounds: 7, discard: 1, cells: 12}, c)
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

// What is left counts the traced rounds and connect-only series after
// the rounds, each at its own pace, and drops a skipped path's share of
// all three.
func TestProgressLeftCountsEveryKindOfStep(t *testing.T) {
	p := newProgress(io.Discard, ProgressRounds, 4, time.Second)
	p.expect(2, 2*time.Second, 2, time.Second)
	if got := p.left(); got != 10*time.Second {
		t.Fatalf("left %v, want 10s (4 rounds of 1s, 2 traces of 2s, 2 series of 1s)", got)
	}
	p.drop(2, 1, 1)
	if got := p.left(); got != 5*time.Second {
		t.Fatalf("after a skipped path left %v, want 5s", got)
	}
	// A trace that ran sets the pace of the rest.
	p.traces.spent, p.traces.done = 4*time.Second, 1
	p.traces.total++
	if got := p.left(); got != 2*time.Second+4*time.Second+time.Second {
		t.Fatalf("left %v, want 7s once a trace took 4s", got)
	}
}
