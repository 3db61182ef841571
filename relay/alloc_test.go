package relay_test

import (
	"io"
	"net"
	"slices"
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
			roundTrip := func() { relayOne(t, c, msg) }
			for range 100 { // warm up: pipes, pools, buffers
				roundTrip()
			}
			if avg := testing.AllocsPerRun(1000, roundTrip); avg > 0.05 {
				t.Errorf("%.2f allocations per relayed round trip", avg)
			}
		})
	}
}

// BenchmarkRelayedMessage relays one 64-byte message each way per
// iteration through every engine and option of the suite's variants, plus
// WakeAuto on a loop pinned to one CPU (its run-queue watch), and reports
// allocations per round trip: the process's, so the client and the echo
// upstream use fixed buffers. ns/op is a loopback round trip through the
// relay with every component free to run anywhere: make bench-relay times
// the engines pinned, beside their peers.
func BenchmarkRelayedMessage(b *testing.B) {
	up := startUpstream(b, "tcp", echoMessages(64))
	all := append(slices.Clone(variants), variant{"epoll-auto-one-cpu", relay.Config{Engine: relay.EngineEpoll, CPUs: []int{0}}})
	for _, v := range all {
		b.Run(v.name, func(b *testing.B) {
			if v.cfg.Engine == relay.EngineSockmap {
				if err := relay.CheckSockmap(); err != nil {
					b.Skip(err.Error())
				}
			}
			rr := startRelay(b, v.cfg, "tcp", up.addr)
			c := dial(b, rr.Addr())
			c.SetDeadline(time.Now().Add(time.Minute))
			msg := make([]byte, 64)
			for range 100 { // warm up: pipes, pools, buffers
				relayOne(b, c, msg)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				relayOne(b, c, msg)
			}
		})
	}
}

// relayOne sends msg through c and reads its echo back into msg.
func relayOne(t testing.TB, c net.Conn, msg []byte) {
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadFull(c, msg); err != nil {
		t.Fatal(err)
	}
}
