package relay_test

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hoplat/hoplat/relay"
)

// TestGoroutineSplicesStreams: a bulk transfer through the goroutine engine
// leaves the buffered copy for splice, and the bytes of both phases arrive
// in order. Chunks are counted only while buffered, so a direction that
// never switched would count at least one chunk per buffer.
func TestGoroutineSplicesStreams(t *testing.T) {
	for _, net := range []string{"tcp", "unix"} {
		t.Run(net, func(t *testing.T) {
			const size = 8 << 20
			cfg := relay.Config{Engine: relay.EngineGoroutine, Buffer: 4096}
			up := startUpstream(t, "tcp", echo)
			rr := startRelay(t, cfg, net, up.addr)
			c := dial(t, rr.Addr())
			want := make([]byte, size)
			rng := rand.New(rand.NewPCG(7, 11))
			for i := range want {
				want[i] = byte(rng.Uint32())
			}
			got := make(chan []byte, 1)
			go func() {
				b, _ := readAllDeadline(c, 30*time.Second)
				got <- b
			}()
			if _, err := c.Write(want); err != nil {
				t.Fatal(err)
			}
			closeWrite(t, c)
			if b := <-got; !bytes.Equal(b, want) {
				t.Fatalf("got %d bytes back of %d, differing", len(b), size)
			}
			s := rr.Stats().Directions.ClientToUpstream
			if s.Bytes != size {
				t.Errorf("client to upstream: %d bytes counted, want %d", s.Bytes, size)
			}
			if s.Chunks >= size/int64(cfg.Buffer)/2 {
				t.Errorf("client to upstream: %d buffered chunks for %d bytes: never switched to splice", s.Chunks, size)
			}
		})
	}
}
