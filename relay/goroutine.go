package relay

import (
	"context"
	"errors"
	"io"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/hoplat/hoplat/sockets"
)

// goroutineEngine is the tcpproxy design: per connection one goroutine per
// direction, each copying between the unwrapped *net.TCPConn and
// *net.UnixConn: through a buffer while the direction carries messages, and
// with a plain io.Copy, which the runtime splices (TCPConn.ReadFrom from a
// TCP or UNIX source, TCPConn.WriteTo to a UNIX destination), once it
// streams (see copyThenSplice). With Stats on, the copy always goes through
// a buffer, since a spliced chunk cannot be timed; Stats therefore changes
// what this engine measures.
type goroutineEngine struct {
	r      *Relay
	ln     *sockets.Listener
	shards []*recorder

	bufs sync.Pool // *[]byte of Config.Buffer bytes, for the buffered phase

	mu     sync.Mutex
	live   map[*gconn]struct{}
	forced bool
	ctx    context.Context // dials; cancelled on force
	cancel context.CancelFunc
}

type gconn struct {
	client, upstream net.Conn
}

func newGoroutineEngine(r *Relay) (*goroutineEngine, error) {
	ln, err := sockets.Listen(context.Background(), r.listen)
	if err != nil {
		return nil, err
	}
	r.bound = ln.Spec().FromNet(ln.Addr())
	r.bound.Opts = sockets.Options{}
	e := &goroutineEngine{r: r, ln: ln, live: map[*gconn]struct{}{}}
	e.bufs.New = func() any {
		b := make([]byte, r.cfg.Buffer)
		return &b
	}
	e.ctx, e.cancel = context.WithCancel(context.Background())
	if r.cfg.Stats {
		// One histogram per goroutine pair would cost ~200 KiB per
		// connection; shards keep the lock uncontended in practice.
		for range runtime.GOMAXPROCS(0) * 2 {
			e.shards = append(e.shards, newRecorder())
		}
	}
	return e, nil
}

func (e *goroutineEngine) recorders() []*recorder { return e.shards }

func (e *goroutineEngine) loopStats() []LoopStats { return nil }

func (e *goroutineEngine) closeListener() { e.ln.Close(); e.cancel() }

func (e *goroutineEngine) serve(stop, force <-chan struct{}) error {
	defer e.cancel()
	var handlers sync.WaitGroup
	acceptDone := make(chan error, 1)
	go func() { acceptDone <- e.acceptLoop(&handlers) }()

	var err error
	select {
	case <-stop:
		e.ln.Close()
		<-acceptDone
	case err = <-acceptDone:
		e.ln.Close()
	}

	finished := make(chan struct{})
	go func() { handlers.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-force:
		e.closeAll()
		<-finished
	}
	return err
}

// acceptLoop accepts until the listener is closed, which is the normal end
// (nil); any other accept error ends serving.
func (e *goroutineEngine) acceptLoop(handlers *sync.WaitGroup) error {
	var shard int
	var backoff time.Duration
	for {
		c, err := e.ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			if errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) || errors.Is(err, syscall.ENOBUFS) {
				// Out of fds the accept fails at once, every time: back
				// off (5 ms doubling to 1 s, as net/http does) instead
				// of spinning until a connection closes.
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				e.r.cfg.Logf("relay: accept on %s: %v; retrying in %v", e.r.bound, err, backoff)
				time.Sleep(backoff)
				continue
			}
			return err
		}
		backoff = 0
		if !e.r.admit() {
			e.r.cfg.Logf("relay: %s -> %s: refused: %d connections live (max-conns)", c.RemoteAddr(), e.r.bound, e.r.cfg.MaxConns)
			c.Close()
			continue
		}
		var rec *recorder
		if len(e.shards) > 0 {
			rec = e.shards[shard%len(e.shards)]
			shard++
		}
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			defer e.r.release()
			e.handle(c, rec)
		}()
	}
}

// track registers a live connection so that closeAll can end it; false
// means shutdown has been forced and the caller must close.
func (e *goroutineEngine) track(g *gconn) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.forced {
		return false
	}
	e.live[g] = struct{}{}
	return true
}

func (e *goroutineEngine) untrack(g *gconn) {
	e.mu.Lock()
	delete(e.live, g)
	e.mu.Unlock()
}

func (e *goroutineEngine) closeAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.forced = true
	e.cancel()
	for g := range e.live {
		g.client.Close()
		g.upstream.Close()
	}
}

// handle dials upstream and relays both directions: one more goroutine
// copies client→upstream while this one copies upstream→client, two per
// connection as in tcpproxy. A direction that ends with EOF half-closes its
// destination and leaves the other running; one that ends with an error
// closes both sockets, which ends the other.
func (e *goroutineEngine) handle(client net.Conn, rec *recorder) {
	up, which := e.dialUpstream(client)
	if up == nil {
		client.Close()
		return
	}
	defer e.r.pool.done(which)
	g := &gconn{client: client, upstream: up}
	if !e.track(g) {
		client.Close()
		up.Close()
		return
	}
	defer e.untrack(g)

	errc := make(chan error, 2)
	go func() { errc <- e.copyDir(g, up, client, ClientToUpstream, rec) }()
	errc <- e.copyDir(g, client, up, UpstreamToClient, rec)
	<-errc
	<-errc
	client.Close()
	up.Close()
}

// dialUpstream connects to the upstream the pool picks for client, and on
// to the next while connects fail; nil once every one has failed (counted
// and logged), else the connection and the upstream's index.
func (e *goroutineEngine) dialUpstream(client net.Conn) (net.Conn, int) {
	p := e.r.pool
	var tried uint64
	for {
		i := p.pick(tried)
		if i < 0 {
			e.r.counters.upstreamFailed.Add(1)
			return nil, -1
		}
		tried |= 1 << i
		up, err := sockets.Dial(e.ctx, p.addr(i))
		if err == nil {
			p.connected(i)
			return up, i
		}
		if e.ctx.Err() != nil {
			// Forced shutdown, not the upstream's fault.
			p.done(i)
			e.r.counters.upstreamFailed.Add(1)
			return nil, -1
		}
		p.failed(i, err)
		e.r.cfg.Logf("relay: %s -> %s: upstream %s: %v", client.RemoteAddr(), e.r.bound, p.addr(i).NetAddr(), err)
	}
}

// fail ends both sides after an error on one. A reset is passed on as a
// reset (SO_LINGER 0) rather than as a polite FIN.
func (g *gconn) fail(err error) {
	if errors.Is(err, syscall.ECONNRESET) {
		setLingerZero(g.client)
		setLingerZero(g.upstream)
	}
	g.client.Close()
	g.upstream.Close()
}

func setLingerZero(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
}

// closeWriter is what *net.TCPConn and *net.UnixConn share for half-close.
type closeWriter interface{ CloseWrite() error }

// copyDir copies src to dst until EOF, then shuts dst's write side so that
// the peer sees the half-close and may still answer.
func (e *goroutineEngine) copyDir(g *gconn, dst, src net.Conn, dir int, rec *recorder) (err error) {
	defer func() {
		if err != nil {
			g.fail(err)
		}
	}()
	if rec == nil {
		err = e.copyThenSplice(dst, src, dir)
	} else {
		err = e.timedCopy(dst, src, dir, rec)
	}
	if err != nil {
		return err
	}
	if cw, ok := dst.(closeWriter); ok {
		if err := cw.CloseWrite(); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
	}
	return nil
}

// spliceAfter is how many reads in a row must fill the buffer before a
// direction stops copying and lets io.Copy splice.
const spliceAfter = 4

// copyThenSplice copies src to dst through a buffer until the direction
// streams, then hands the rest to io.Copy, which splices. A small message
// spliced costs three splice(2) (socket to pipe, pipe to socket, and the
// EAGAIN that ends the drain), each taking and releasing page references
// and pipe slots for a hundred bytes that one copy moves cheaper; copied,
// it costs a read(2), a write(2) and the EAGAIN read that parks the
// goroutine in the netpoller: fewer calls a message, and more messages in
// the same time (docs/measurements.md, "Splice pipes"). What pays for splice is a
// stream: a source that keeps the buffer full, read after read. Reads that
// fill the buffer spliceAfter times in a row say so; a request/response
// protocol does not fill a 64 KiB buffer, a bulk transfer does at once.
// Once it splices, Go's poller moves up to 1 MiB per call through 1 MiB
// pipes (internal/poll's maxSpliceSize): a call a MiB, what the splice
// engine reaches only with its pipes grown (splice_linux.go), so nothing
// is left to tune here.
func (e *goroutineEngine) copyThenSplice(dst, src net.Conn, dir int) error {
	bp := e.bufs.Get().(*[]byte)
	full := 0
	ended, err := sockets.Copy(dst, src, *bp, func(n int) bool {
		e.r.counters.bytes[dir].Add(int64(n))
		e.r.counters.chunks[dir].Add(1)
		if n == len(*bp) {
			full++
		} else {
			full = 0
		}
		return full < spliceAfter
	})
	e.bufs.Put(bp)
	if ended || err != nil {
		return err
	}
	n, err := io.Copy(dst, src)
	e.r.counters.bytes[dir].Add(n)
	return err
}

// timedCopy moves src to dst through a buffer and records each chunk's
// time from the return of its read (the goroutine's wake-up) to the end of
// its write.
func (e *goroutineEngine) timedCopy(dst, src net.Conn, dir int, rec *recorder) error {
	_, err := sockets.Copy(timedWriter{dst, rec}, src, make([]byte, e.r.cfg.Buffer), func(n int) bool {
		e.r.counters.bytes[dir].Add(int64(n))
		e.r.counters.chunks[dir].Add(1)
		return true
	})
	return err
}

// timedWriter records how long each write that succeeds takes: Copy calls
// it as soon as the read returns.
type timedWriter struct {
	w   io.Writer
	rec *recorder
}

func (t timedWriter) Write(p []byte) (int, error) {
	t0 := nanotime()
	n, err := t.w.Write(p)
	if err == nil {
		t.rec.record(nanotime() - t0)
	}
	return n, err
}
