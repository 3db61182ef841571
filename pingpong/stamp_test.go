package pingpong_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/hoplat/hoplat/pingpong"
	"github.com/hoplat/hoplat/pingpong/echo"
	"github.com/hoplat/hoplat/pingpong/report"
	"github.com/hoplat/hoplat/present/load"
	respecho "github.com/hoplat/hoplat/responder/echo"
)

// TestRXStamps runs a stamped client under every I/O model against a real
// responder on loopback TCP: every kept response is stamped (TestMain holds
// the stack's stamping on), and the wake-ups lie inside the round trips
// they belong to.
func TestRXStamps(t *testing.T) {
	for _, m := range models {
		t.Run(m.String(), func(t *testing.T) {
			tcp, _ := serve(t, m, respecho.Handler{})
			rep, err := pingpong.Run(context.Background(), pingpong.Config{
				Target: tcp, Protocol: echo.Protocol{}, IO: m, RXStamps: true,
				Warmup: 50 * time.Millisecond, Time: 200 * time.Millisecond,
			})
			if err != nil {
				t.Fatal(err)
			}
			s := onlyStep(t, rep)
			w := s.RXWake
			switch {
			case s.Errors != 0 || s.Transactions == 0:
				t.Fatalf("%d events, %d errors: %v", s.Transactions, s.Errors, s.ErrorSamples)
			case w == nil:
				t.Fatal("no rx_wake_us with RXStamps on")
			case w.Count+w.Unstamped != s.Transactions:
				t.Fatalf("%d stamped + %d unstamped responses, want one per event (%d)", w.Count, w.Unstamped, s.Transactions)
			case w.Unstamped != 0:
				t.Fatalf("%d of %d responses unstamped", w.Unstamped, s.Transactions)
			case w.Min <= 0 || w.P50 <= 0:
				t.Fatalf("wake-up min %v p50 %v µs: a stamp is taken before the read returns", w.Min, w.P50)
			// Each wake-up lies inside its own round trip, so its
			// median lies below theirs on any machine.
			case w.P50 >= s.Latency.P50:
				t.Fatalf("wake-up p50 %v µs not below the round trip's p50 %v µs", w.P50, s.Latency.P50)
			}
			t.Logf("%s: wake-up p50 %.1f µs of a %.1f µs round trip, %d of %d stamped", m, w.P50, s.Latency.P50, w.Count, s.Transactions)
		})
	}
}

// Off, the client reports no wake-ups at all: the plain client is not
// charged for what it did not measure.
func TestRXStampsOff(t *testing.T) {
	tcp, _ := serve(t, pingpong.Netpoll, respecho.Handler{})
	rep, err := pingpong.Run(context.Background(), pingpong.Config{Target: tcp, Protocol: echo.Protocol{}, Time: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if w := onlyStep(t, rep).RXWake; w != nil {
		t.Fatalf("rx_wake_us %+v without RXStamps", w)
	}
}

// UNIX stream sockets carry no receive stamps: the option is refused by
// name before any connection is made.
func TestRXStampsUnix(t *testing.T) {
	_, unix := serve(t, pingpong.Netpoll, respecho.Handler{})
	_, err := pingpong.Run(context.Background(), pingpong.Config{Target: unix, Protocol: echo.Protocol{}, RXStamps: true, Time: 50 * time.Millisecond})
	var ce *pingpong.ConfigError
	if !errors.As(err, &ce) || ce.Flag != "rx-stamps" {
		t.Fatalf("UNIX target with RXStamps: %v, want a ConfigError for rx-stamps", err)
	}
	t.Log(err)
}

// A stamped round trip allocates nothing, under every I/O model: the
// recvmsg header and control buffer live with the connection.
func TestRXStampsAllocs(t *testing.T) {
	if race {
		t.Skip("the race detector allocates on its own account")
	}
	// A blocking responder for every client: a spinning one would fight
	// a spinning client for the CPU.
	// 100 round trips per model: any allocation per round trip shows, and
	// a spinning client sharing a busy machine's CPUs still ends quickly.
	const trips = 100
	tcp, _ := serve(t, pingpong.Blocking, respecho.Handler{})
	for _, m := range models {
		allocs, stamped, unstamped, err := pingpong.StampedAllocs(context.Background(), pingpong.Config{
			Target: tcp, Protocol: echo.Protocol{}, IO: m,
		}, trips)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		t.Logf("%s: %v allocations per stamped round trip; %d stamped, %d unstamped", m, allocs, stamped, unstamped)
		if allocs != 0 {
			t.Errorf("%s: %v allocations per stamped round trip, want 0", m, allocs)
		}
		if stamped != trips+1 || unstamped != 0 {
			t.Errorf("%s: %d stamped + %d unstamped of %d round trips, want all stamped", m, stamped, unstamped, trips+1)
		}
	}
}

// The JSON a driver reads carries the summary, every response stamped,
// and the config says the option was on.
func TestRXStampsJSON(t *testing.T) {
	tcp, _ := serve(t, pingpong.Blocking, respecho.Handler{})
	rep, err := pingpong.Run(context.Background(), pingpong.Config{Target: tcp, Protocol: echo.Protocol{}, IO: pingpong.Blocking, RXStamps: true, Time: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := load.WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	var doc report.ReportJSON
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b.Bytes(), []byte(`"rx_stamps": true`)) {
		t.Errorf("config does not say rx_stamps: %s", b.Bytes())
	}
	w := doc.Results[0].RXWake
	if w == nil || w.Count == 0 || w.Unstamped != 0 || w.Avg <= 0 {
		t.Fatalf("rx_wake_us %+v in %s", w, b.Bytes())
	}
}
