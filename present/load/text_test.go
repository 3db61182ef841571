package load

import (
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/results"
	"github.com/hoplat/hoplat/results/stats"
)

func TestSQLHeading(t *testing.T) {
	// mysql ping: one statement per transaction. Queries equal events, so no
	// qps series, but the counters are still SQL statistics.
	run := results.Run{Elapsed: time.Second, Latency: stats.NewHistogram(), Events: []int64{10}, Queries: 10}
	for _, c := range []struct {
		name    string
		queries int64
		heading string
	}{{"mysql", 10, "SQL statistics:"}, {"echo", 0, "Round-trip statistics:"}} {
		run.Queries = c.queries
		r := results.Report{Steps: []results.Step{{Threads: 1, Runs: []results.Run{run}}}}
		var b strings.Builder
		if err := WriteText(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "\n"+c.heading+"\n") {
			t.Errorf("%s: text lacks %q:\n%s", c.name, c.heading, b.String())
		}
	}
}
