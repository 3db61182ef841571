package relay

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/sockets"
)

// loopEngine runs Workers event loops. Each is a goroutine locked to its
// own OS thread with its own epoll set; every socket it watches was created
// non-blocking by the engine (RawListen, accept4, RawDial), so Go's
// netpoller never sees them and each event wakes exactly one poller.
//
// Accepted connections spread over the loops without a hand-off: the one
// listening socket sits in every loop's epoll set with EPOLLEXCLUSIVE
// (Linux 4.5), so a new connection wakes one idle loop, which accepts it and
// keeps it for its life. Unlike SO_REUSEPORT per loop this also works for
// UNIX listeners, and a busy loop does not get its share of new
// connections hashed onto it regardless of load.
type loopEngine struct {
	loopGroup[*loop]
	splice bool
	// streamPipe is the capacity a streaming direction's pipe grows to
	// (splice engine; 0: no growth), grown counts the pipes that grew.
	streamPipe int
	grown      atomic.Int64
	global     sync.Mutex             // LockGlobal: held by whichever loop moves a chunk
	wake       wakeChoice             // how the loops wait (wake.go)
	slice      atomic.Pointer[string] // the time slice the first loop's thread obtained (slice.go)
	batch      string                 // batchOn, or why the loops make one call per message
	waitHook   func()                 // tests: called before every wait, so that a test can hold the loops while it readies sockets
}

// Event data: the listener and the wake-up eventfd have negative ids; a
// connection's socket is slot*2+side, with the slot's generation beside it
// so that an event queued for a connection closed earlier in the same batch
// is not applied to the one that reuses its slot.
const (
	idListener = -1
	idWake     = -2
)

func newLoopEngine(r *Relay) (engine, error) {
	e := &loopEngine{splice: r.cfg.Engine == EngineSplice, wake: chooseWake(r.cfg, loopCPUs(r.cfg))}
	if err := e.listen(r); err != nil {
		return nil, err
	}
	if r.cfg.Stats && !r.bound.IsUnix() {
		// The kernel stamps received data while any socket asks, and
		// switches stamping on and off from a work queue
		// (net_enable_timestamp, net/core/dev.c) as the first socket
		// asks and the last closes; on a busy CPU that work can wait
		// long enough that whole rounds go unstamped. A listener that
		// asks keeps it on between connections.
		e.ln.EnableRXTimestamps()
	}
	r.wake = e.wake
	e.batch = chooseBatch(r.cfg)
	if e.splice {
		e.streamPipe = streamPipeSize(r.cfg.Buffer)
	}
	if err := e.addLoops(func(id int) (*loop, error) { return newLoop(e, id) }); err != nil {
		return nil, err
	}
	r.batch = e.batch
	return e, nil
}

// loopCPUs is how many CPUs a loop thread may run on: one when Config.CPUs
// pins each, else the process's affinity mask (taskset) as the calling
// thread has it.
func loopCPUs(c Config) int {
	if len(c.CPUs) > 0 {
		return 1
	}
	set, err := affinity.ThreadCPUs()
	if err != nil {
		return runtime.NumCPU()
	}
	return set.Len()
}

// sliceGranted is the time slice the loops' threads obtained, once one
// has started: "" before.
func (e *loopEngine) sliceGranted() string {
	if s := e.slice.Load(); s != nil {
		return *s
	}
	return ""
}

func (e *loopEngine) recorders() []*recorder {
	return loopRecorders(e.loops, func(l *loop) *recorder { return l.rec })
}

// wakeRecorders are the loops' wake-up delays, measured from the kernel's
// receive stamps.
func (e *loopEngine) wakeRecorders() []*recorder {
	return loopRecorders(e.loops, func(l *loop) *recorder { return l.wakes })
}

func (e *loopEngine) loopStats() []LoopStats {
	out := make([]LoopStats, len(e.loops))
	for i, l := range e.loops {
		out[i].Accepted = l.accepted.Load()
		out[i].SpinHits = l.spinHits.Load()
		out[i].SpinMisses = l.spinMisses.Load()
		out[i].Batches = l.batches.Load()
		out[i].BatchedReads = l.batched.Load()
		out[i].OwnWindows = l.owned.Load()
		out[i].SharedWindows = l.shared.Load()
	}
	return out
}

// loop is one event loop and the connections it owns.
type loop struct {
	lifecycle[conn] // the listener, the epoll set, the connections (lifecycle_linux.go)
	e               *loopEngine
	id              int

	spinHits   atomic.Int64 // adaptive spins that caught an event
	spinMisses atomic.Int64 // adaptive spins that ran out
	owned      atomic.Int64 // windows a watched CPU was the loop's own (own_linux.go)
	shared     atomic.Int64 // and windows it was not
	// idleOut counts EPOLLOUT events that found nothing waiting to be
	// written: wake-ups for room nobody asked for (conn_linux.go, armOut).
	// The loop's own; read after the loop has stopped.
	idleOut int64

	buf      []byte   // read buffer shared by the loop's connections
	spare    [][]byte // pending buffers returned by drained connections
	pipes    []*pipe  // empty pipes for the splice engine
	bigPipes int      // pipes grown to streamPipe, in use or in pipes
	rec      *recorder
	wakes    *recorder // kernel receive stamp to the wake-up that read it (timed runs, TCP sources)
	now      int64     // clock at the last wake-up with events

	batch    *sockets.Batch // the epoll engine's batched moves (batch_linux.go); nil: one call per message
	batchBuf []byte         // batchSize chunks of batchChunk, allocated at the first batch
	moves    []move         // scratch for one wake-up's batchable events
	batches  atomic.Int64   // batches made
	batched  atomic.Int64   // reads made in them
}

func newLoop(e *loopEngine, id int) (*loop, error) {
	l := &loop{e: e, id: id}
	if err := e.openLoop(&l.loopSet, "loop", id); err != nil {
		return nil, err
	}
	var err error
	if !e.splice {
		l.buf = make([]byte, e.r.cfg.Buffer)
		if e.batch == batchOn {
			if l.batch, err = sockets.NewBatch(batchSize); err != nil {
				// The first loop's refusal is the relay's answer
				// (Relay.Batch); a later loop's is logged.
				if id == 0 {
					e.batch = "off (" + err.Error() + ")"
				} else {
					e.r.cfg.Logf("relay: loop %d: %v (one call per message)", id, err)
				}
				l.batch = nil
			}
			l.moves = make([]move, 0, batchSize)
		}
	}
	if e.r.cfg.Stats {
		l.rec = newRecorder()
		l.wakes = newRecorder()
	}
	return l, nil
}

func (l *loop) closeFDs() {
	l.lifecycle.closeFDs()
	if l.batch != nil {
		l.batch.Close()
		l.batch = nil
	}
	for _, p := range l.pipes {
		p.close()
	}
	l.pipes = nil
}

// idleWait bounds a raw epoll_wait, in milliseconds: below sysmon's 10 ms
// preemption period, so that an idle loop times out before it is signalled.
const idleWait = 5

// run is the loop's thread. It returns when shutdown is forced, or once
// accepting has stopped and its last connection has ended.
//
// It is the relay's hot loop, kept in one function on purpose: every
// relayed message passes through it, and its dispatch of each event and
// its poll strategy share locals (the event slice, the clock read once per
// wake-up, the spin's score) that a split would pass through calls on
// every message. The wait itself (loopSet.wait) and the step after the
// events (carryOn), which the router's loops share, are a call each per
// wake-up, not per event.
//
// Every system call on the steady-state path (epoll_wait, read, write,
// splice) is made raw, so that the runtime never sees this goroutine enter
// a syscall, and the goroutine keeps its P while it sleeps in epoll_wait,
// with a P of its own reserved (sockets.HoldP). Through syscall.Syscall,
// sysmon would take the P away on nearly every wake-up, a futex and a
// nanosleep or so per message (sockets/rawio_linux.go says why); raw, the
// runtime's only calls are sysmon's preemption every 10 ms, which ends
// epoll_wait with EINTR (docs/measurements.md, "Relay loop" has strace's
// counts of both).
//
// A raw wait is bounded by idleWait: a loop that saw nothing for that long
// is idle, and waits through the scheduler until its next event, so that an
// idle relay does not take sysmon's preemption signal 100 times a second.
// A gap that long between messages costs the few calls of one hand-off.
//
// The goroutine is locked to its thread, pinned or not. Unlocked, each
// preemption by sysmon (every 10 ms of raw waiting, which looks to the
// runtime like running) puts it on the run queue with wakep, and the
// thread woken takes it about as often as its own, so the loop's work
// spreads over several threads and migrates between CPUs; locked, one
// thread does it all. A locked goroutine's preemption hands its P to
// another M and back (stoplockedm, startlockedm), which costs the same
// switches the hop does. A Gosched every few ms, to keep sysmon from
// preempting at all, is worse: goschedImpl wakes a spare M, which races
// for the goroutine (docs/measurements.md, "Relay loop").
func (l *loop) run() (err error) {
	release, granted := l.startThread("loop", l.id)
	defer release()
	l.e.slice.CompareAndSwap(nil, &granted)
	defer l.ackStopAccept()
	defer l.closeAll()

	events := make([]unix.EpollEvent, 256)
	// BusyPoll: keep polling without sleeping for a while after the last
	// event, so that the answer to what was just relayed finds the thread
	// awake instead of paying a wake-up (a few microseconds, more on a busy
	// machine); idle longer than that, the loop sleeps in epoll_wait.
	busyPoll := int64(l.e.r.cfg.BusyPoll)
	// Adaptive wake (wake.go): after an event, poll until spinUntil while
	// the score says such spins catch the next event.
	adaptive := l.e.wake.adaptive
	spin := int64(l.e.wake.spin)
	// A loop allowed one CPU watches it, and adapts only while it is its
	// own (wake.go, StrategyOwn); it starts asleep.
	var watch *cpuWatch
	if l.e.wake.watch {
		if watch = l.watchCPU(); watch != nil {
			defer watch.close()
		}
	}
	var score spinScore
	var spinUntil int64
	var lastEvent int64
	for {
		timeout := -1
		switch {
		case l.e.r.cfg.Spin:
			timeout = 0
		case busyPoll > 0 && nanotime()-lastEvent < busyPoll:
			timeout = 0
		case l.acceptGate.paused:
			timeout = 100 // ms: retry accept4 after running out of fds
		case spinUntil != 0:
			if nanotime() < spinUntil {
				timeout = 0
			} else {
				score.miss()
				l.spinMisses.Add(1)
				spinUntil = 0
			}
		}
		if h := l.e.waitHook; h != nil {
			h()
		}
		n, werr := l.wait(events, timeout)
		if werr == sockets.ErrInterrupted {
			continue
		}
		if werr != nil {
			return fmt.Errorf("relay: loop %d: %w", l.id, werr)
		}
		if n > 0 {
			l.now = nanotime()
			lastEvent = l.now
			if watch != nil && watch.due(l.now) {
				if adaptive = watch.check(l.now); adaptive {
					l.owned.Add(1)
				} else {
					l.shared.Add(1)
				}
			}
			if spinUntil != 0 {
				score.hit()
				l.spinHits.Add(1)
			}
			if adaptive && score.spin() {
				spinUntil = l.now + spin
			} else {
				spinUntil = 0
			}
		}
		if l.batch != nil {
			l.dispatchBatched(events[:n])
		} else {
			dispatch(events[:n], l.wake, l.accept, func(ev *unix.EpollEvent) { l.event(ev.Fd, ev.Pad, ev.Events) })
		}
		if !l.carryOn(n, timeout) {
			return nil
		}
	}
}

// watchCPU starts watching whether the loop's CPU is its own; nil, logged,
// where it cannot (the loop then sleeps, as it would beside its peers).
func (l *loop) watchCPU() *cpuWatch {
	w, err := newCPUWatch(nanotime())
	if err != nil {
		l.e.r.cfg.Logf("relay: loop %d: not watching its CPU, it sleeps: %v", l.id, err)
		return nil
	}
	return w
}

func (l *loop) closeAll() {
	for _, c := range l.slots {
		if c != nil {
			l.closeConn(c, nil)
		}
	}
}
