package pingpong_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/responder"
	respecho "github.com/hoplat/hoplat/responder/echo"
	"github.com/hoplat/hoplat/sockets"
)

var models = []pingpong.IOModel{pingpong.Netpoll, pingpong.Blocking, pingpong.Spin}

// TestAllocsPerRoundTrip proves the overhead figure: at most one heap
// allocation per 1,000 round trips, client and responder together (both run
// in this process, so the process-wide count covers both).
func TestAllocsPerRoundTrip(t *testing.T) {
	if testing.Short() || race {
		t.Skip("counts 50,000 round trips per model, without -race")
	}
	// The runtime makes a few one-off allocations of its own while the
	// load settles (an M for a P handed off around a blocking syscall):
	// enough round trips show the rate, not the start.
	const n = 50000
	for _, m := range models {
		tcp, unix := serve(t, m, respecho.Handler{Service: responder.Service{Time: time.Microsecond}})
		for _, target := range []sockets.Addr{tcp, unix} {
			allocs, _, err := pingpong.RoundTrips(context.Background(), pingpong.Config{
				Target: target, Protocol: echo.Protocol{}, IO: m,
			}, n)
			if err != nil {
				t.Fatalf("%s %s: %v", m, target.Network, err)
			}
			t.Logf("%s %s: %d allocations in %d round trips", m, target.Network, allocs, n)
			if allocs > n/1000 {
				t.Errorf("%s %s: %d allocations in %d round trips, want at most %d", m, target.Network, allocs, n, n/1000)
			}
		}
	}
}

// BenchmarkRoundTrip times echo round trips of 64 bytes under each I/O
// model, client and responder in one process (so on a 2-core machine the
// spin model competes with itself: compare models with pingpong and pongd
// as separate processes, as make bench-fidelity does).
func BenchmarkRoundTrip(b *testing.B) {
	for _, m := range models {
		for _, network := range []string{"tcp", "unix"} {
			b.Run(fmt.Sprintf("%s/%s", m, network), func(b *testing.B) {
				tcp, unix := serve(b, m, respecho.Handler{})
				target := tcp
				if network == "unix" {
					target = unix
				}
				b.SetBytes(2 * echo.DefaultSize)
				allocs, p50, err := pingpong.RoundTrips(context.Background(), pingpong.Config{
					Target: target, Protocol: echo.Protocol{}, IO: m,
				}, b.N)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(p50)/1e3, "p50-us")
				b.ReportMetric(float64(allocs)/float64(b.N), "allocs/rt")
			})
		}
	}
}

// BenchmarkClock compares the clock reads the client could take per send
// and per receive: time.Since on a fixed base reads only the monotonic
// clock; time.Now reads the wall clock too.
func BenchmarkClock(b *testing.B) {
	base := time.Now()
	b.Run("since-base", func(b *testing.B) {
		var sum time.Duration
		for b.Loop() {
			sum += time.Since(base)
		}
		_ = sum
	})
	b.Run("now", func(b *testing.B) {
		var t time.Time
		for b.Loop() {
			t = time.Now()
		}
		_ = t
	})
}
