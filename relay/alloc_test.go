package relay_test

import (
	"io"
	"testing"
	"time"

	"github.com/hoplat/hoplat/relay"
)

// TestNoAllocsPerMessage: relaying a message allocates nothing, timing on.
// AllocsPerRun counts the whole process, so the client and the echo
// upstream here use fixed buffers and allocate nothing themselves.
func TestNoAllocsPerMessage(t *testing.T) {
	up := startUpstream(t, "tcp", echoMessages(64))
	for _, v := range []variant{
		{"goroutine", relay.Config{Engine: relay.EngineGoroutine}},
		{"goroutine-timed", relay.Config{Engine: relay.EngineGoroutine, Stats: true}},
		{"epoll", relay.Config{Engine: relay.EngineEpoll, Stats: true, Lock: relay.LockConn}},
		{"splice", relay.Config{Engine: relay.EngineSplice, Stats: true}},
		{"epoll-wake-adaptive", relay.Config{Engine: relay.EngineEpoll, Stats: true, Wake: relay.WakeAdaptive}},
	} {
		t.Run(v.name, func(t *testing.T) {
			rr := startRelay(t, v.cfg, "tcp", up.addr)
			c := dial(t, rr.Addr())
			c.SetDeadline(time.Now().Add(30 * time.Second))
			msg := make([]byte, 64)
			roundTrip := func() {
				if _, err := c.Write(msg); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(c, msg); err != nil {
					t.Fatal(err)
				}
			}
			for range 100 { // warm up: pipes, pools, buffers
				roundTrip()
			}
			if avg := testing.AllocsPerRun(1000, roundTrip); avg > 0.05 {
				t.Errorf("%.2f allocations per relayed round trip", avg)
			}
		})
	}
}
