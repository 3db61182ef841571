package load

import (
	"testing"
	"time"

	"github.com/hoplat/hoplat/pingpong/report"
)

func TestProgressLine(t *testing.T) {
	for _, c := range []struct {
		p    report.Progress
		want string
	}{
		{report.Progress{At: 3 * time.Second, Threads: 4, Interval: time.Second, Events: 1234, P95: 123.456, Errors: 2},
			"[ 3s ] thds: 4 tps: 1234.00 qps: 1234.00 lat (us,95%): 123.46 err/s: 2.00 reconn/s: 0.00"},
		{report.Progress{At: 1500 * time.Millisecond, Threads: 1, Interval: 500 * time.Millisecond, Events: 100, Queries: 1600, Reconnects: 1, P95: 25},
			"[ 1.5s ] thds: 1 tps: 200.00 qps: 3200.00 lat (us,95%): 25.00 err/s: 0.00 reconn/s: 2.00"},
		{report.Progress{},
			"[ 0s ] thds: 0 tps: 0.00 qps: 0.00 lat (us,95%): 0.00 err/s: 0.00 reconn/s: 0.00"},
	} {
		if got := ProgressLine(c.p); got != c.want {
			t.Errorf("Progress%+v:\n got %s\nwant %s", c.p, got, c.want)
		}
	}
}
