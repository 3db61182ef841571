package load

import (
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/stats"
)

func TestSQLHeading(t *testing.T) {
	// mysql ping: one statement per transaction. Queries equal events, so no
	// qps series, but the counters are still SQL statistics.
	run := report.Run{Elapsed: time.Second, Latency: stats.NewHistogram(), Events: []int64{10}, Queries: 10}
	for _, c := range []struct {
		name    string
		queries int64
		heading string
	}{{"mysql", 10, "SQL statistics:"}, {"echo", 0, "Round-trip statistics:"}} {
		run.Queries = c.queries
		r := report.Report{Steps: []report.Step{{Threads: 1, Runs: []report.Run{run}}}}
		var b strings.Builder
		if err := WriteText(&b, r); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "\n"+c.heading+"\n") {
			t.Errorf("%s: text lacks %q:\n%s", c.name, c.heading, b.String())
		}
	}
}
