package relay

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/sockets"
)

// ErrClosed is what Serve returns when the relay was closed before it
// started serving.
var ErrClosed = errors.New("relay: closed")

// Relay accepts connections on one address and relays each, both ways, to
// a new connection to another address, or to one of several (NewUpstreams).
type Relay struct {
	cfg      Config
	listen   sockets.Addr // as asked
	connect  sockets.Addr // the first upstream
	pool     *pool        // every upstream, connect first
	bound    sockets.Addr // dialable form of the bound listener
	eng      engine
	counters counters
	route    routeCounters // Config.Route conn and rw
	wake     wakeChoice    // the event loops' wait strategy; zero for engines without loops
	batch    string        // the epoll engine's batching: "io_uring", or "off (why)"; empty for other engines
	cut      atomic.Int64  // connections still live when Serve stopped waiting for them

	mu      sync.Mutex
	serving bool // Serve was called
	served  bool // and has returned
	closed  chan struct{}
}

// engine is what each way of moving bytes implements. serve accepts until
// stop is closed, then lets live connections finish until force is closed,
// closes them, and returns once every goroutine and fd it owns is gone.
type engine interface {
	serve(stop, force <-chan struct{}) error
	closeListener() // when Serve never ran
	recorders() []*recorder
	loopStats() []LoopStats
}

// New binds listen and returns a relay that will connect each accepted
// connection to connect. The listener is bound when New returns, so Addr
// can be dialed at once (connections wait in the backlog until Serve).
func New(listen, connect sockets.Addr, cfg Config) (*Relay, error) {
	return NewUpstreams(listen, []sockets.Addr{connect}, cfg)
}

// NewUpstreams is New with several upstreams: each accepted connection is
// relayed to one of them, chosen as Config.Balance says; a connect that
// fails marks that upstream down for Config.Retry and the connection tries
// the next (pool, in upstream.go, has the rules). Every engine takes a
// list; the sockmap engine TCP upstreams only, as for one.
func NewUpstreams(listen sockets.Addr, connect []sockets.Addr, cfg Config) (*Relay, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	if listen.Role == sockets.RoleConnect {
		return nil, fmt.Errorf("relay: listen address %s is a connect address", listen)
	}
	if err := checkUpstreams(connect); err != nil {
		return nil, err
	}
	r := &Relay{cfg: cfg, listen: listen, connect: connect[0], pool: newPool(connect, cfg), closed: make(chan struct{})}
	switch cfg.Engine {
	case EngineGoroutine:
		r.eng, err = newGoroutineEngine(r)
	case EngineSockmap:
		r.eng, err = newSockmapEngine(r)
	case EngineEpoll:
		if cfg.Route != RouteBytes {
			r.eng, err = newRouteEngine(r)
			break
		}
		r.eng, err = newLoopEngine(r)
	default:
		r.eng, err = newLoopEngine(r)
	}
	if err != nil {
		return nil, err
	}
	return r, nil
}

// Upstreams is every upstream's share of the connections now.
func (r *Relay) Upstreams() []UpstreamStats { return r.pool.stats() }

// Addr is the dialable address the relay listens on, with the port the
// kernel chose when the listen address asked for port 0 and without the
// listen-only options (fork, reuseaddr, mode...).
func (r *Relay) Addr() sockets.Addr { return r.bound }

// Wake says how the event loops wait for events (sleep, spin, busy-poll D
// or adaptive) and by which rule: chosen from Config and, for WakeAuto,
// the CPUs the loops may run on (cpus). The strategy is empty and the
// rule WakeRuleNone for engines without loops of their own.
func (r *Relay) Wake() (strategy string, rule WakeRule, cpus int) {
	return r.wake.Strategy, r.wake.Rule, r.wake.CPUs
}

// Batch says whether the epoll engine's loops make the reads and writes
// of a wake-up that finds several connections ready in one io_uring_enter
// each ("io_uring"), or "off" and why (--no-batch, or the kernel refused
// io_uring); empty for the other engines.
func (r *Relay) Batch() string { return r.batch }

// Config returns the configuration in effect, defaults filled in.
func (r *Relay) Config() Config { return r.cfg }

// Stats returns the counters and the merged residence histogram now,
// marked Partial while Serve runs (WhileServing) and after a Serve that
// cut connections (Cut).
func (r *Relay) Stats() Snapshot {
	s := r.snapshot(r.eng.recorders(), r.eng.loopStats())
	r.mu.Lock()
	switch cut := r.cut.Load(); {
	case r.serving && !r.served:
		s.Partial, s.WhileServing = true, true
	case cut > 0:
		s.Partial, s.Cut = true, cut
	}
	r.mu.Unlock()
	if w, ok := r.eng.(interface{ wakeRecorders() []*recorder }); ok {
		s.Wakes = summary(w.wakeRecorders(), false)
	}
	return s
}

// Serve relays until ctx ends or Close is called. When ctx ends it stops
// accepting (a UNIX listener's path is removed), lets live connections
// finish for up to Config.Grace, closes what is left, and returns nil once
// everything it started is gone. Close ends it without the grace period.
func (r *Relay) Serve(ctx context.Context) error {
	r.mu.Lock()
	select {
	case <-r.closed:
		r.mu.Unlock()
		return ErrClosed
	default:
	}
	if r.serving {
		r.mu.Unlock()
		return errors.New("relay: Serve called twice")
	}
	r.serving = true
	r.mu.Unlock()

	stop := make(chan struct{})
	force := make(chan struct{})
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-ctx.Done():
		case <-r.closed:
		case <-done:
			return
		}
		close(stop)
		if r.cfg.Grace > 0 {
			t := time.NewTimer(r.cfg.Grace)
			defer t.Stop()
			select {
			case <-t.C:
			case <-r.closed:
			case <-done:
				return
			}
		}
		// What is live now is cut: its bytes are counted up to here.
		r.cut.Store(r.counters.active.Load())
		close(force)
	})
	err := r.eng.serve(stop, force)
	close(done)
	wg.Wait()
	r.mu.Lock()
	r.served = true
	r.mu.Unlock()
	return err
}

// Close stops the relay at once: the listener is closed and every live
// connection with it. It is idempotent.
func (r *Relay) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case <-r.closed:
		return nil
	default:
	}
	close(r.closed)
	if !r.serving {
		r.eng.closeListener()
	}
	return nil
}

// admit counts one more live connection, or refuses it (false) when
// MaxConns are live already.
func (r *Relay) admit() bool {
	n := r.counters.active.Add(1)
	if r.cfg.MaxConns > 0 && n > int64(r.cfg.MaxConns) {
		r.counters.active.Add(-1)
		r.counters.refused.Add(1)
		return false
	}
	r.counters.accepted.Add(1)
	return true
}

func (r *Relay) release() { r.counters.active.Add(-1) }
