package pingpong

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hoplat/hoplat/stats"
)

// maxSamples bounds the distinct error messages a worker keeps per run.
const maxSamples = 5

// worker drives one connection: one thread of the load.
type worker struct {
	s   *step
	id  int
	cpu int // CPU pinned to, -1 when not pinned

	// c is the live connection, which the step's owner interrupts from
	// its own goroutine: Interrupt and Close are safe together.
	c    atomic.Pointer[liveConn]
	sess Session
	// retr is sess as a Retrier, nil when it retries nothing; seen is
	// its count already taken.
	retr Retrier
	seen int64

	lat, cor        *stats.Histogram
	connects        []int64 // set-up times since the last flush: rare, so no histogram of its own
	events, queries int64
	errors, reconns int64
	ignored         int64 // retried by the session itself, among errors
	samples         []string

	prog *progress // nil unless progress is reported
	wake *wakes    // receive-stamped wake-ups (stamp.go); nil unless Config.RXStamps
}

// progress is what a worker counted since the last progress line; its lock
// is uncontended but for one moment per interval.
type progress struct {
	mu                                  sync.Mutex
	lat                                 *stats.Histogram
	events, queries, errors, reconnects int64
}

func newWorker(s *step, id int, reporting bool) *worker {
	// A histogram takes ~220 KiB: a worker keeps only those it needs, so
	// that hundreds of threads stay affordable.
	w := &worker{s: s, id: id, cpu: -1, lat: stats.NewHistogram(), wake: newWakes(s.cfg)}
	if s.interval > 0 {
		w.cor = stats.NewHistogram()
	}
	if reporting {
		w.prog = &progress{lat: stats.NewHistogram()}
	}
	return w
}

func (w *worker) run(ctx context.Context, ready chan<- error) {
	cpu, unlock, err := pinned(w.s.cfg.IO, w.s.cfg.CPUs, w.id)
	defer unlock()
	w.cpu = cpu
	if err == nil {
		err = w.dial(ctx)
	}
	if err != nil {
		ready <- connectError(w.id, err)
		return
	}
	defer w.close()
	ready <- nil
	select {
	case <-w.s.start:
	case <-ctx.Done():
		return
	}
	w.loop(ctx)
}

// dial connects and opens a session, timing both as connection set-up.
func (w *worker) dial(ctx context.Context) error {
	cfg := &w.s.cfg
	ctx, cancel := context.WithTimeout(ctx, cfg.ConnectTimeout)
	defer cancel()
	t := now()
	c, err := dial(ctx, cfg.Target, cfg.IO)
	if err == nil {
		c, err = w.wake.stamp(c)
	}
	if err != nil {
		return err
	}
	// A handshake that never completes would block in Read: the deadline
	// interrupts it.
	fired := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		c.Interrupt()
		close(fired)
	})
	sess, err := cfg.Protocol.Open(c, cfg.Target.IsUnix())
	if !stop() {
		<-fired
		err = fmt.Errorf("pingpong: %s: handshake: %w", cfg.Target.NetAddr(), context.Cause(ctx))
	}
	if err != nil {
		c.Close()
		return err
	}
	w.connects = append(w.connects, now()-t)
	w.sess = sess
	w.retr, _ = sess.(Retrier)
	w.seen = 0
	// The owner sets stopped, then interrupts every worker's c; this
	// stores c, then reads stopped. Go's atomics are sequentially
	// consistent, so one of the two sees the other.
	w.c.Store(&liveConn{c})
	if w.s.stopped.Load() {
		c.Interrupt()
	}
	return nil
}

// liveConn boxes a conn for atomic.Pointer.
type liveConn struct{ conn }

func (w *worker) interrupt() {
	if c := w.c.Load(); c != nil {
		c.Interrupt()
	}
}

func (w *worker) close() {
	if c := w.c.Swap(nil); c != nil {
		c.Close()
		w.sess = nil
	}
}

// loop runs round trips until the last run ends. Phase -1 is the warm-up,
// recorded like a run and then thrown away.
func (w *worker) loop(ctx context.Context) {
	s := w.s
	p := 0
	if s.cfg.Warmup > 0 {
		p = -1
	}
	end := s.end(p)
	// Open loop: workers start staggered over one interval so that their
	// requests do not leave in bursts.
	next := s.t0 + s.interval*int64(w.id)/int64(s.threads)
	for {
		var t2 int64
		if s.interval > 0 {
			t2 = w.paced(next)
			next += s.interval
		} else {
			t2 = w.closedUntil(end)
		}
		if t2 < 0 {
			if s.stopped.Load() {
				if s.stalled.Load() {
					w.lost()
				}
				w.flush(p)
				return
			}
			if t2 = w.recover(ctx); t2 < 0 {
				w.flush(p)
				return
			}
		}
		for t2 >= end {
			w.flush(p)
			p++
			if p == s.cfg.Runs {
				return
			}
			end = s.end(p)
		}
	}
}

// closedUntil runs closed-loop round trips until one replies at or after
// end (a phase's end) and returns the clock at that reply, or -1 when one
// failed. It loops itself, rather than loop calling it once per round trip,
// so that the frames a round trip returns through after its wait are only
// this one's and the session's: a context switch refills the CPU's return
// predictor with the other task's calls, so every return up the stack
// after the peer's turn is a mispredicted one, and each frame between the
// wait and the loop costs one more such return per round trip. closed is
// one round trip, for tests.
func (w *worker) closedUntil(end int64) int64 {
	for {
		t1 := now()
		q, err := w.sess.Event()
		t2 := now()
		if err != nil {
			w.fail(err)
			return -1
		}
		w.record(t2-t1, 0, q)
		if t2 >= end {
			return t2
		}
	}
}

// closed runs one closed-loop round trip and returns the clock at its
// reply, or -1 when it failed.
func (w *worker) closed() int64 { return w.closedUntil(0) }

// paced sends at the intended time due (waiting for it if early) and times
// the round trip both from the actual send and from due.
func (w *worker) paced(due int64) int64 {
	t1 := now()
	if t1 < due {
		w.waitUntil(due)
		t1 = now()
	}
	q, err := w.sess.Event()
	t2 := now()
	if err != nil {
		w.fail(err)
		return -1
	}
	w.record(t2-t1, t2-due, q)
	return t2
}

// slack is how early the pacer wakes before a send, to spin the rest:
// nanosleep(2) wakes late by up to the thread's timer slack (50 us by
// default, prctl(2) PR_SET_TIMERSLACK).
const slack = int64(60 * time.Microsecond)

// waitUntil waits for the clock to reach due. Sleeping in the runtime's
// timers would be a millisecond late: they wait in epoll_wait, whose
// timeout is in milliseconds, so a sleep shorter than 1 ms lasts about
// 1 ms, and that lateness would count against the responder in the
// corrected latency. So the pacer sleeps in nanosleep(2) to within slack of
// due, then spins on the clock (yielding the P, but in the spin model,
// which spins all the way).
func (w *worker) waitUntil(due int64) {
	spin := w.s.cfg.IO == Spin
	if d := due - now() - slack; d > 0 && !spin {
		preciseSleep(time.Duration(d))
	}
	for now() < due {
		if !spin {
			runtime.Gosched()
		}
	}
}

func (w *worker) record(lat, corrected int64, q int) {
	if w.retr != nil {
		w.takeIgnored()
	}
	w.lat.Record(lat)
	if w.cor != nil {
		w.cor.Record(corrected)
	}
	w.events++
	w.queries += int64(q)
	if w.prog != nil {
		w.prog.mu.Lock()
		w.prog.lat.Record(lat)
		w.prog.events++
		w.prog.queries += int64(q)
		w.prog.mu.Unlock()
	}
}

func (w *worker) fail(err error) {
	if w.retr != nil {
		w.takeIgnored()
	}
	if w.s.stopped.Load() {
		return
	}
	w.count(err)
}

// takeIgnored counts what the session retried since the last look.
func (w *worker) takeIgnored() {
	n, last := w.retr.Ignored()
	d := n - w.seen
	if d == 0 {
		return
	}
	w.seen = n
	w.ignored += d
	w.errors += d
	if last != nil && len(w.samples) < maxSamples {
		msg := "ignored, retried: " + last.Error()
		if !contains(w.samples, msg) {
			w.samples = append(w.samples, msg)
		}
	}
	if w.prog != nil {
		w.prog.mu.Lock()
		w.prog.errors += d
		w.prog.mu.Unlock()
	}
}

// lost counts the round trip the step's owner interrupted because its
// reply was still missing stallGrace after the last run ended: a reply that
// never comes is an error, not a latency.
func (w *worker) lost() {
	w.count(fmt.Errorf("pingpong: worker %d: no reply %v after the run ended: lost or stalled", w.id, stallGrace))
}

func (w *worker) count(err error) {
	w.errors++
	if len(w.samples) < maxSamples {
		msg := err.Error()
		for _, m := range w.samples {
			if m == msg {
				return
			}
		}
		w.samples = append(w.samples, msg)
	}
	if w.prog != nil {
		w.prog.mu.Lock()
		w.prog.errors++
		w.prog.mu.Unlock()
	}
}

// recover replaces a failed connection, as sysbench reconnects, retrying
// with a growing pause while the target is away. It returns the clock after
// it, or -1 when the step ended first.
func (w *worker) recover(ctx context.Context) int64 {
	w.close()
	pause := time.Millisecond
	for {
		err := w.dial(ctx)
		t := now()
		if err == nil {
			w.reconns++
			if w.prog != nil {
				w.prog.mu.Lock()
				w.prog.reconnects++
				w.prog.mu.Unlock()
			}
			return t
		}
		if w.s.stopped.Load() || t >= w.s.end(w.s.cfg.Runs-1) {
			return -1
		}
		w.fail(connectError(w.id, err))
		time.Sleep(pause)
		pause = min(2*pause, 100*time.Millisecond)
	}
}

// flush hands what the worker recorded in phase p to the step's run p and
// starts the next phase empty. Warm-up (p = -1) is dropped.
func (w *worker) flush(p int) {
	if p >= 0 && p < len(w.s.runs) {
		w.s.mu.Lock()
		r := &w.s.runs[p]
		r.Latency.Merge(w.lat)
		if r.Corrected != nil {
			r.Corrected.Merge(w.cor)
		}
		for _, d := range w.connects {
			r.Connect.Record(d)
		}
		r.Events[w.id] = w.events
		r.Queries += w.queries
		r.Errors += w.errors
		r.Ignored += w.ignored
		r.Reconnects += w.reconns
		for _, m := range w.samples {
			if len(r.ErrorSamples) < maxSamples && !contains(r.ErrorSamples, m) {
				r.ErrorSamples = append(r.ErrorSamples, m)
			}
		}
		w.s.mu.Unlock()
		w.connects = w.connects[:0]
	}
	w.lat.Reset()
	if w.cor != nil {
		w.cor.Reset()
	}
	w.events, w.queries, w.errors, w.reconns, w.ignored = 0, 0, 0, 0, 0
	w.samples = w.samples[:0]
	w.wake.flush(w.s, p)
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
