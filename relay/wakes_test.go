package relay_test

import (
	"io"
	"net"
	"testing"
	"time"

	"github.com/hoplat/hoplat/relay"
)

// The epoll engine, timed, measures its own wake-ups from the kernel's
// receive stamps on TCP legs; UNIX legs carry none, and say so by having
// no samples.
func TestEpollWakesFromReceiveStamps(t *testing.T) {
	for _, leg := range []struct {
		network string
		stamped bool
	}{{"tcp", true}, {"unix", false}} {
		t.Run(leg.network, func(t *testing.T) {
			up := startUpstream(t, leg.network, echoMessages(64))
			rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, Stats: true}, leg.network, up.addr)
			c := dial(t, rr.Addr())
			c.SetDeadline(time.Now().Add(30 * time.Second))
			msg := make([]byte, 64)
			begin := time.Now()
			for range 2000 {
				if _, err := c.Write(msg); err != nil {
					t.Fatal(err)
				}
				if _, err := io.ReadFull(c, msg); err != nil {
					t.Fatal(err)
				}
			}
			took := time.Since(begin)
			w := rr.Stats().Wakes
			if w == nil {
				t.Fatal("no wakes in the epoll engine's timed stats")
			}
			if !leg.stamped {
				if w.Count != 0 {
					t.Errorf("UNIX legs: %d stamped reads, want none", w.Count)
				}
				return
			}
			t.Logf("%d stamped reads of 4000, p50 %v, round trip %v", w.Count, time.Duration(w.P50Ns), took/2000)
			// TestMain holds the stack's stamping on: every read is
			// stamped, and a wake-up is part of the round trip. On any
			// machine: each round trip holds two of the loop's wake-ups,
			// one per direction, apart, so their mean is at most half the
			// mean round trip, and their median at most twice their mean
			// (Markov's inequality): at most the mean round trip.
			if w.Count < 4000 || w.MeanNs <= 0 || time.Duration(w.P50Ns) > took/2000 {
				t.Errorf("wakes %+v over 4000 reads taking %v", w, took)
			}
		})
	}
}

// A UNIX client leg wakes no loop for room it did not ask for: the
// client's every read of a reply frees the relay's send buffer and wakes
// every waiter on the socket (unix_write_space), so a socket registered
// for EPOLLOUT all along would give its loop one idle event per reply.
// TCP wakes only a writer that found no room.
func TestNoIdleWakeForRoom(t *testing.T) {
	for _, engine := range []relay.Engine{relay.EngineEpoll, relay.EngineSplice} {
		for _, leg := range []string{"unix", "tcp"} {
			t.Run(string(engine)+"/"+leg, func(t *testing.T) {
				up := startUpstream(t, "tcp", func(c net.Conn) { io.Copy(c, c) })
				rr := startRelay(t, relay.Config{Engine: engine}, leg, up.addr)
				c := dial(t, rr.Addr())
				const messages = 1000
				msg, got := make([]byte, 64), make([]byte, 64)
				for range messages {
					if _, err := c.Write(msg); err != nil {
						t.Fatal(err)
					}
					if _, err := io.ReadFull(c, got); err != nil {
						t.Fatal(err)
					}
				}
				c.Close()
				rr.stop(t)
				n, ok := relay.IdleOut(rr.Relay)
				if !ok {
					t.Fatal("not a loop engine")
				}
				if n > 2 {
					t.Errorf("%d EPOLLOUT events found nothing to write over %d replies", n, messages)
				}
			})
		}
	}
}
