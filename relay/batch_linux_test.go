package relay_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
)

// TestBatchedMoves runs many connections at once through the epoll engine
// with its defaults, whose loop makes the moves of a wake-up that finds
// several sockets readable in batches (batch_linux.go).
//
// First, with the loop held before its wait, every client writes a message
// larger than a batch's chunk, so that the next wait finds all of them
// readable: the batch must run (the loop's counters say so) and each chunk
// that filled its buffer must be followed by the rest. Then random bytes in
// random-sized writes, read back by clients of whom half read in small
// pieces, so that writes to them fill the socket and wait. Every byte must
// come back in order and every FIN must pass.
//
// Timed (Stats), TCP reads are batched as recvmsg(2) with their receive
// stamps: every chunk must have its residence sample, and a TCP leg its
// wake-up delays.
func TestBatchedMoves(t *testing.T) {
	for _, timed := range []bool{false, true} {
		for _, leg := range legs {
			name := leg.client + "-" + leg.upstream
			if timed {
				name += "-timed"
			}
			t.Run(name, func(t *testing.T) { testBatchedMoves(t, leg.client, leg.upstream, timed) })
		}
	}
}

func testBatchedMoves(t *testing.T, clientNet, upNet string, timed bool) {
	up := startUpstream(t, upNet, echo)
	rr, hold := startHeldRelay(t, clientNet, up, timed)

	const conns = 32
	cs := make([]net.Conn, conns)
	for i := range cs {
		cs[i] = dial(t, rr.Addr())
		roundTrip(t, cs[i], []byte("connected"))
	}
	msg := bytes.Repeat([]byte("0123456789abcdef"), 20000/16)
	hold.Lock()
	for _, c := range cs {
		if _, err := c.Write(msg); err != nil {
			t.Fatal(err)
		}
	}
	hold.Unlock()
	for i, c := range cs {
		got := make([]byte, len(msg))
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
			t.Fatalf("connection %d: echo of %d bytes: %v", i, len(msg), err)
		}
	}
	batches, reads := batchCounts(rr.Relay)
	t.Logf("held wait: %d batches, %d reads in them", batches, reads)
	if batches == 0 || reads < conns-1 {
		t.Fatalf("%d batches of %d reads after %d sockets were made readable at once: the batched path did not run", batches, reads, conns)
	}

	var wg sync.WaitGroup
	errs := make(chan string, conns)
	for i, c := range cs {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		want := make([]byte, 20000+rng.IntN(200000))
		for j := range want {
			want[j] = byte(rng.Uint32())
		}
		wg.Add(2)
		got := make(chan []byte, 1)
		go func() {
			defer wg.Done()
			got <- readBack(c, i%2 == 0)
		}()
		go func() {
			defer wg.Done()
			for rest := want; len(rest) > 0; {
				n := min(len(rest), 1+rng.IntN(40000))
				if _, err := c.Write(rest[:n]); err != nil {
					errs <- fmt.Sprintf("connection %d: %v", i, err)
					return
				}
				rest = rest[n:]
			}
			c.(interface{ CloseWrite() error }).CloseWrite()
			if b := <-got; !bytes.Equal(b, want) {
				errs <- fmt.Sprintf("connection %d: %d bytes back of %d, differing", i, len(b), len(want))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	b2, r2 := batchCounts(rr.Relay)
	t.Logf("random load: %d more batches, %d more reads in them", b2-batches, r2-reads)
	if !timed {
		return
	}
	s := rr.Stats()
	if chunks := s.Directions.ClientToUpstream.Chunks + s.Directions.UpstreamToClient.Chunks; s.Residence.Count != chunks {
		t.Errorf("residence samples %d, chunks %d", s.Residence.Count, chunks)
	}
	if clientNet == "tcp" || upNet == "tcp" {
		if s.Wakes == nil || s.Wakes.Count == 0 {
			t.Errorf("a TCP leg, timed, and no wake-up delay recorded: %+v", s.Wakes)
		}
	}
}

// startHeldRelay serves an epoll relay with its default flags (timed: with
// Stats) from clientNet to up, whose loop waits for events only while hold
// is free; it skips (fails under HOPLAT_REQUIRE_INTEGRATION) where the
// engine cannot batch.
func startHeldRelay(t *testing.T, clientNet string, up *upstream, timed bool) (*running, *sync.Mutex) {
	t.Helper()
	r, err := relay.New(listenAddr(t, clientNet), up.addr, relay.Config{Engine: relay.EngineEpoll, Stats: timed})
	if err != nil {
		t.Fatal(err)
	}
	if b := r.Batch(); b != "io_uring" {
		r.Close()
		peer.Unavailable(t, "the epoll engine does not batch here: "+b)
	}
	hold := new(sync.Mutex)
	relay.HoldLoops(r, func() {
		// A barrier, not a critical section: the loops wait here while
		// the test holds the lock.
		hold.Lock()
		//lint:ignore SA2001 the empty section is the wait
		hold.Unlock()
	})
	return serveRelay(t, r), hold
}

func roundTrip(t *testing.T, c net.Conn, msg []byte) {
	t.Helper()
	if _, err := c.Write(msg); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, len(msg))
	c.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.ReadFull(c, got); err != nil || !bytes.Equal(got, msg) {
		t.Fatalf("echo %q: %q, %v", msg, got, err)
	}
}

// batchCounts sums the loops' batches and the reads made in them.
func batchCounts(r *relay.Relay) (batches, reads int64) {
	for _, l := range r.Stats().Loops {
		batches += l.Batches
		reads += l.BatchedReads
	}
	return batches, reads
}

// readBack reads c to its end, in small pieces when slow is set.
func readBack(c net.Conn, slow bool) []byte {
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	if !slow {
		b, _ := io.ReadAll(c)
		return b
	}
	var out []byte
	buf := make([]byte, 100)
	for {
		n, err := c.Read(buf)
		out = append(out, buf[:n]...)
		if err != nil {
			return out
		}
	}
}

// TestNoAllocsPerBatch: a batch of moves allocates nothing, timed (stamped
// reads, residence) or not. Each round holds the loop while eight clients
// send, so that the loop's next wait finds all eight readable and moves them
// in one batch each way.
func TestNoAllocsPerBatch(t *testing.T) {
	t.Run("untimed", func(t *testing.T) { testNoAllocsPerBatch(t, false) })
	t.Run("timed", func(t *testing.T) { testNoAllocsPerBatch(t, true) })
}

func testNoAllocsPerBatch(t *testing.T, timed bool) {
	up := startUpstream(t, "tcp", echoMessages(64))
	rr, hold := startHeldRelay(t, "tcp", up, timed)
	cs := make([]net.Conn, 8)
	for i := range cs {
		cs[i] = dial(t, rr.Addr())
		cs[i].SetDeadline(time.Now().Add(60 * time.Second))
	}
	msg := make([]byte, 64)
	round := func() {
		hold.Lock()
		for _, c := range cs {
			if _, err := c.Write(msg); err != nil {
				t.Fatal(err)
			}
		}
		hold.Unlock()
		for _, c := range cs {
			if _, err := io.ReadFull(c, msg); err != nil {
				t.Fatal(err)
			}
		}
	}
	for range 50 { // warm up: the batch's buffers, the loop's scratch
		round()
	}
	b0, _ := batchCounts(rr.Relay)
	if avg := testing.AllocsPerRun(300, round); avg > 0.05 {
		t.Errorf("%.2f allocations per round of 8 batched messages", avg)
	}
	if b, _ := batchCounts(rr.Relay); b == b0 {
		t.Error("no batch ran during the measured rounds")
	}
}
