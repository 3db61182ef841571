package relay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
	"github.com/hoplat/hoplat/sockets"
)

// TestSemantics runs one suite of behaviours against every engine
// configuration, on every combination of TCP and UNIX legs.
//
// With -short only each engine's default configuration and epoll's
// spinning loop run (the fast loop); make test runs every variant.
func TestSemantics(t *testing.T) {
	short := map[string]bool{"goroutine": true, "epoll": true, "splice": true, "sockmap": true, "epoll-spin": true}
	for _, v := range variants {
		if testing.Short() && !short[v.name] {
			continue
		}
		t.Run(v.name, func(t *testing.T) {
			if v.cfg.Engine == relay.EngineSockmap {
				if err := relay.CheckSockmap(); err != nil {
					peer.Unavailable(t, err.Error())
				}
			}
			// The legs run side by side once the variant's other cases
			// are done: their waits (half-close's delayed answer) overlap,
			// and slow-reader, which measures the whole process's heap and
			// CPU time, runs alone.
			for _, leg := range legs {
				t.Run(leg.client+"-"+leg.upstream, func(t *testing.T) {
					t.Parallel()
					if v.cfg.Engine == relay.EngineSockmap && (leg.client == "unix" || leg.upstream == "unix") {
						t.Skip(sockmapUnixLimit)
					}
					t.Run("byte-exact", func(t *testing.T) { testByteExact(t, v.cfg, leg.client, leg.upstream) })
					t.Run("half-close", func(t *testing.T) { testHalfClose(t, v.cfg, leg.client, leg.upstream) })
					t.Run("upstream-refused", func(t *testing.T) { testRefused(t, v.cfg, leg.client, leg.upstream) })
				})
			}
			t.Run("reset", func(t *testing.T) { testReset(t, v.cfg) })
			t.Run("slow-reader", func(t *testing.T) { testSlowReader(t, v.cfg) })
			t.Run("churn", func(t *testing.T) { testChurn(t, v.cfg, 64, 200) })
			t.Run("max-conns", func(t *testing.T) { testMaxConns(t, v.cfg) })
			t.Run("shutdown", func(t *testing.T) { testShutdown(t, v.cfg) })
		})
	}
}

// sockmapUnixLimit is why the sockmap engine refuses UNIX legs, as
// measured on Linux 6.18.
const sockmapUnixLimit = "sockmap: af_unix skbs belong to the sending socket (bpf_get_socket_cookie names the remote peer), " +
	"unix_stream_read_skb runs the verdict once per data_ready (bytes queued before insertion lag for good), " +
	"and af_unix keeps no count of bytes sent, so a FIN cannot wait for the kernel's queue to drain"

// testByteExact sends random bytes in random-sized writes through the
// relay to an echo upstream while reading the echo concurrently.
func testByteExact(t *testing.T, cfg relay.Config, clientNet, upNet string) {
	up := startUpstream(t, upNet, echo)
	rr := startRelay(t, cfg, clientNet, up.addr)
	rng := rand.New(rand.NewPCG(1, uint64(len(clientNet)+len(upNet))))
	sizes := []int{1, 1000, 300 << 10}
	defer func() {
		if t.Failed() {
			return
		}
		// Every byte counted each way, and with timing on, one residence
		// sample per chunk. The sockmap engine counts a connection's bytes
		// when it retires it, after the client has read its last echo: CI
		// once read 1001 of 308201 bytes before that.
		waitStats(t, rr, func(s relay.Snapshot) bool { return s.Connections.Active == 0 })
		s := rr.Stats()
		want := int64(1 + 1000 + 300<<10)
		c2u, u2c := s.Directions.ClientToUpstream, s.Directions.UpstreamToClient
		if c2u.Bytes != want || u2c.Bytes != want {
			t.Errorf("stats bytes %d and %d, want %d each way", c2u.Bytes, u2c.Bytes, want)
		}
		if cfg.Stats && s.Residence.Count != c2u.Chunks+u2c.Chunks {
			t.Errorf("residence samples %d, chunks %d+%d", s.Residence.Count, c2u.Chunks, u2c.Chunks)
		}
		if cfg.Stats && (s.Residence.P50Ns <= 0 || s.Residence.Histogram == "") {
			t.Errorf("residence %+v", s.Residence)
		}
	}()
	for _, size := range sizes {
		c := dial(t, rr.Addr())
		want := make([]byte, size)
		for i := range want {
			want[i] = byte(rng.Uint32())
		}
		got := make(chan []byte, 1)
		go func() {
			b, _ := readAllDeadline(c, 20*time.Second)
			got <- b
		}()
		for rest := want; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(70000))
			if _, err := c.Write(rest[:n]); err != nil {
				t.Fatal(err)
			}
			rest = rest[n:]
		}
		closeWrite(t, c)
		if b := <-got; !bytes.Equal(b, want) {
			t.Fatalf("%d bytes: got %d bytes back, differing", size, len(b))
		}
	}
}

// testHalfClose: the upstream answers only after it has seen the client's
// FIN, and the answer must still arrive (socat's -t 0.5 would cut it off
// were the answer slower; here it is sent after a delay the test controls).
func testHalfClose(t *testing.T, cfg relay.Config, clientNet, upNet string) {
	release := make(chan struct{})
	up := startUpstream(t, upNet, func(c net.Conn) {
		req, err := io.ReadAll(c)
		if err != nil {
			return
		}
		<-release
		c.Write(append([]byte("answer to "), req...))
	})
	rr := startRelay(t, cfg, clientNet, up.addr)
	c := dial(t, rr.Addr())
	c.Write([]byte("question"))
	closeWrite(t, c)
	// The relay must not close the connection on the client's FIN: after
	// a moment the upstream answers.
	timer := time.AfterFunc(300*time.Millisecond, func() { close(release) })
	defer timer.Stop()
	b, err := readAllDeadline(c, 10*time.Second)
	if err != nil || string(b) != "answer to question" {
		t.Fatalf("got %q, %v", b, err)
	}
}

// testRefused: a refused upstream closes the client at once, is logged
// with both addresses, and the relay goes on serving.
func testRefused(t *testing.T, cfg relay.Config, clientNet, upNet string) {
	dead := listenAddr(t, upNet)
	if upNet == "tcp" {
		dead = deadTCP(t)
	}
	dead.Role = sockets.RoleAny
	rr := startRelay(t, cfg, clientNet, dead)
	for i := range 2 {
		c := dial(t, rr.Addr())
		b, err := readAllDeadline(c, 10*time.Second)
		if errors.Is(err, os.ErrDeadlineExceeded) || len(b) > 0 {
			t.Fatalf("connection %d: client not closed: %q, %v", i, b, err)
		}
	}
	rr.log.waitFor(t, dead.NetAddr(), rr.Addr().NetAddr())
	if s := rr.Stats(); s.Connections.UpstreamFailed != 2 {
		t.Errorf("upstream_failed = %d, want 2", s.Connections.UpstreamFailed)
	}
	if upNet == "unix" {
		// The upstream comes up: the same relay now relays.
		up := startUpstream(t, "unix", echo)
		if err := os.Rename(up.addr.Path, dead.Path); err != nil {
			t.Fatal(err)
		}
		c := dial(t, rr.Addr())
		c.Write([]byte("ping"))
		closeWrite(t, c)
		if b, err := readAllDeadline(c, 10*time.Second); string(b) != "ping" {
			t.Fatalf("after upstream came up: %q, %v\nrelay log: %q\nrelay stats: %+v", b, err, rr.log.all(), rr.Stats().Connections)
		}
	}
}

// testReset: an upstream that resets its connection makes the relay close
// the client promptly.
func testReset(t *testing.T, cfg relay.Config) {
	up := startUpstream(t, "tcp", func(c net.Conn) {
		buf := make([]byte, 4)
		io.ReadFull(c, buf)
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	})
	rr := startRelay(t, cfg, "tcp", up.addr)
	c := dial(t, rr.Addr())
	c.Write([]byte("boom"))
	b, err := readAllDeadline(c, 10*time.Second)
	if errors.Is(err, os.ErrDeadlineExceeded) || len(b) > 0 {
		t.Fatalf("client not closed after upstream reset: %q, %v", b, err)
	}
}

// testSlowReader: an upstream that stops reading stalls the client's
// writes (the relay does not buffer without bound) and the stalled
// connection burns no CPU.
func testSlowReader(t *testing.T, cfg relay.Config) {
	stalled := make(chan struct{})
	up := startUpstream(t, "tcp", func(c net.Conn) { <-stalled })
	defer close(stalled)
	rr := startRelay(t, cfg, "tcp", up.addr)
	c := dial(t, rr.Addr())
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const total = 256 << 20
	chunk := make([]byte, 1<<20)
	written := 0
	for written < total {
		// A write that moves nothing for 250 ms finds the relay stalled;
		// one that buffered without bound would take all 256 MiB at once.
		c.SetWriteDeadline(time.Now().Add(250 * time.Millisecond))
		n, err := c.Write(chunk)
		written += n
		if err != nil {
			break
		}
	}
	if written >= total {
		t.Fatalf("wrote all %d MiB into a relay whose upstream reads nothing", total>>20)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > 16<<20 {
		t.Errorf("heap grew %d MiB with a stalled connection", grown>>20)
	}
	if cfg.Spin {
		return // spinning loops burn their core by design
	}
	// Stalled: the process should be idle. 300 ms of wall time, at most
	// 60 ms of CPU (a busy loop would take ~300). A share of this
	// process's own wall time, not a speed: a loop that polls takes all of
	// it and one that sleeps next to none, on any machine.
	cpu0 := cpuTime(t)
	wall := time.Now()
	<-time.After(300 * time.Millisecond)
	if used, elapsed := cpuTime(t)-cpu0, time.Since(wall); used > elapsed/5 {
		t.Errorf("stalled connection used %v of CPU in %v", used, elapsed)
	}
}

func cpuTime(t testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestManyConnections holds well over a thousand connections at once
// through the goroutine engine and two epoll loops (the test process holds
// both ends of each, and the fd limit here is 20,000), then churns.
func TestManyConnections(t *testing.T) {
	if testing.Short() {
		t.Skip("thousands of connections")
	}
	for _, v := range []variant{
		{"goroutine", relay.Config{Engine: relay.EngineGoroutine}},
		{"epoll-2", relay.Config{Engine: relay.EngineEpoll, Workers: 2}},
	} {
		t.Run(v.name, func(t *testing.T) {
			s := testChurn(t, v.cfg, 1500, 1000)
			t.Logf("accepted %d; per loop %+v", s.Connections.Accepted, s.Loops)
			var sum int64
			for _, l := range s.Loops {
				sum += l.Accepted
			}
			if len(s.Loops) > 0 && sum != s.Connections.Accepted {
				t.Errorf("loops accepted %d, relay %d", sum, s.Connections.Accepted)
			}
		})
	}
}

// testChurn opens conc connections at once, then churns through total
// more, and checks that no fd or goroutine is left behind.
func testChurn(t *testing.T, cfg relay.Config, conc, total int) relay.Snapshot {
	up := startUpstream(t, "tcp", echo)
	fds0, gor0 := nonPipeFDs(), runtime.NumGoroutine()
	rr := startRelay(t, cfg, "tcp", up.addr)
	roundTrip := func(c net.Conn) {
		msg := []byte("hello relay")
		if _, err := c.Write(msg); err != nil {
			t.Error(err)
			return
		}
		buf := make([]byte, len(msg))
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil || !bytes.Equal(buf, msg) {
			t.Errorf("echo: %q, %v", buf, err)
		}
	}
	open := make([]net.Conn, conc)
	for i := range open {
		c, err := sockets.Dial(t.Context(), rr.Addr())
		if err != nil {
			t.Fatal(err)
		}
		open[i] = c
	}
	for _, c := range open {
		roundTrip(c)
	}
	for _, c := range open {
		c.Close()
	}
	for range total {
		c, err := sockets.Dial(t.Context(), rr.Addr())
		if err != nil {
			t.Fatal(err)
		}
		roundTrip(c)
		c.Close()
	}
	snap := rr.Stats()
	rr.stop(t)
	up.Close()
	// Go's own splice (the goroutine engine, the echo upstream) keeps a
	// pool of pipes that the GC releases at its leisure: count everything
	// else (sockets, epoll and eventfds).
	fds := nonPipeFDs()
	if fds > fds0 {
		t.Errorf("fds other than pipes: %d before, %d after churn", fds0, fds)
	}
	// Goroutines of closed connections exit asynchronously in the net
	// package; Serve has waited for the relay's own. There is no event to
	// wait on for the net package's, so the count polls, bounded.
	// A closed connection's goroutine returns from its next read, µs to a
	// scheduler slice later: 2 s is two orders of magnitude above that.
	for deadline := time.Now().Add(2 * time.Second); runtime.NumGoroutine() > gor0 && time.Now().Before(deadline); {
		runtime.Gosched()
		time.Sleep(time.Millisecond) // polled: nothing signals a goroutine's exit
	}
	if g := runtime.NumGoroutine(); g > gor0 {
		t.Errorf("goroutines: %d before, %d after churn", gor0, g)
	}
	return snap
}

// testMaxConns: beyond the bound a connection is refused with a log line,
// and the ones within keep working.
func testMaxConns(t *testing.T, cfg relay.Config) {
	up := startUpstream(t, "tcp", echo)
	cfg.MaxConns = 2
	rr := startRelay(t, cfg, "tcp", up.addr)
	var live []net.Conn
	for range 2 {
		c := dial(t, rr.Addr())
		c.Write([]byte("x"))
		buf := make([]byte, 1)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		live = append(live, c)
	}
	extra := dial(t, rr.Addr())
	if b, err := readAllDeadline(extra, 10*time.Second); errors.Is(err, os.ErrDeadlineExceeded) || len(b) > 0 {
		t.Fatalf("third connection not refused: %q, %v", b, err)
	}
	rr.log.waitFor(t, "max-conns")
	live[0].Write([]byte("y"))
	buf := make([]byte, 1)
	if _, err := io.ReadFull(live[0], buf); err != nil || buf[0] != 'y' {
		t.Fatalf("live connection after a refusal: %q, %v", buf, err)
	}
	if s := rr.Stats(); s.Connections.Refused != 1 {
		t.Errorf("refused = %d, want 1", s.Connections.Refused)
	}
}

// testShutdown: when Serve's context ends, the listener goes (UNIX path
// removed), a live connection still completes, and one that lingers past
// the grace period is closed.
func testShutdown(t *testing.T, cfg relay.Config) {
	up := startUpstream(t, "tcp", echo)
	cfg.Grace = 300 * time.Millisecond
	listenNet := "unix"
	if cfg.Engine == relay.EngineSockmap {
		listenNet = "tcp" // TCP legs only; the path check below is skipped
	}
	rr := startRelay(t, cfg, listenNet, up.addr)
	busy := dial(t, rr.Addr())
	idle := dial(t, rr.Addr())
	for _, c := range []net.Conn{busy, idle} {
		c.Write([]byte("a"))
		buf := make([]byte, 1)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
	}
	rr.cancel()
	// The path disappears once accepting stops; the live ones go on.
	busy.Write([]byte("bc"))
	closeWrite(t, busy)
	if b, err := readAllDeadline(busy, 10*time.Second); string(b) != "bc" {
		t.Fatalf("live connection during shutdown: %q, %v", b, err)
	}
	if b, err := readAllDeadline(idle, 10*time.Second); errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("idle connection not closed after the grace period: %q, %v", b, err)
	}
	select {
	case err := <-rr.done:
		if err != nil {
			t.Fatal(err)
		}
		rr.done = nil
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after the grace period")
	}
	if listenNet != "unix" {
		return
	}
	if _, err := os.Stat(rr.Addr().Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("UNIX path %s still there after shutdown: %v", rr.Addr().Path, err)
	}
}

// nonPipeFDs counts descriptors other than pipes in one pass over
// /proc/self/fd: Go's pipe pool is being closed by GC cleanups meanwhile,
// so two separate counts would not add up.
func nonPipeFDs() int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && !strings.HasPrefix(l, "pipe:") {
			n++
		}
	}
	return n
}

// TestSnapshotJSON: the stats file starts with the schema and carries the
// configuration the relay ran with.
func TestSnapshotJSON(t *testing.T) {
	up := startUpstream(t, "tcp", echo)
	rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, Workers: 2, Stats: true}, "tcp", up.addr)
	var buf bytes.Buffer
	if err := rr.Stats().WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Schema string `json:"schema"`
		Config struct {
			Engine  string `json:"engine"`
			Workers int    `json:"workers"`
		} `json:"config"`
		Loops []relay.LoopStats `json:"loops"`
	}
	if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(bytes.TrimSpace(buf.Bytes()), []byte(`{
  "schema": "hoplat.relay.v1"`)) || got.Config.Engine != "epoll" || got.Config.Workers != 2 || len(got.Loops) != 2 {
		t.Errorf("snapshot JSON:\n%s", buf.Bytes())
	}
}

// TestPinnedLoops: with CPUs set, each loop thread runs on its CPU only
// (read back from /proc/self/task/*/status).
func TestPinnedLoops(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Skip("pinning is only visible with 2 or more CPUs")
	}
	last := runtime.NumCPU() - 1
	up := startUpstream(t, "tcp", echo)
	rr := startRelay(t, relay.Config{Engine: relay.EngineEpoll, CPUs: []int{last}}, "tcp", up.addr)
	c := dial(t, rr.Addr())
	c.Write([]byte("x"))
	buf := make([]byte, 1)
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	want := "Cpus_allowed_list:\t" + strconv.Itoa(last) + "\n"
	for _, task := range tasks {
		if b, err := os.ReadFile("/proc/self/task/" + task.Name() + "/status"); err == nil && strings.Contains(string(b), want) {
			return
		}
	}
	t.Errorf("no thread pinned to CPU %d alone", last)
}
