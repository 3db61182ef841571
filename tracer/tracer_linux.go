package tracer

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/cilium/ebpf/ringbuf"
)

// Tracer records the scheduler and system-call events of the followed
// tasks while started. Its methods are safe to call from several
// goroutines; Start and Stop alternate.
type Tracer struct {
	mu       sync.Mutex
	cfg      Config
	objs     *objects
	rd       *ringbuf.Reader
	events   []Event // reused by every window: a Trace is valid until the next Start
	dropped  uint64
	bad      uint64
	readErr  error
	done     chan struct{} // closed when the collector has returned
	start    uint64
	perEvent time.Duration
}

// Open loads the tracer's programs and sets the kernel's filters from cfg.
// Nothing is recorded until Start. Where the tracer cannot run, the error
// wraps ErrNoBTF, ErrNoCapability or ErrKernel (each errors.ErrUnsupported)
// and says what the kernel answered.
func Open(cfg Config) (*Tracer, error) {
	cfg.Components = maps.Clone(cfg.Components)
	cfg.Threads = maps.Clone(cfg.Threads)
	cfg.CPUs = slices.Clone(cfg.CPUs)
	if cfg.Components == nil {
		cfg.Components = map[int]string{}
	}
	if cfg.Threads == nil {
		cfg.Threads = map[int]string{}
	}
	if cfg.MaxEvents <= 0 {
		cfg.MaxEvents = DefaultMaxEvents
	}
	objs, err := newObjects(cfg.RingBytes)
	if err != nil {
		return nil, err
	}
	t := &Tracer{cfg: cfg, objs: objs, events: make([]Event, 0, min(cfg.MaxEvents, 1<<16))}
	fail := func(err error) (*Tracer, error) {
		objs.close()
		return nil, err
	}
	cfg.WithoutSyscalls = slices.Clone(cfg.WithoutSyscalls)
	for tgid, c := range cfg.Components {
		if err := setFollowed(objs, &cfg, tgid, c, true); err != nil {
			return fail(fmt.Errorf("tracer: follow process %d: %w", tgid, err))
		}
	}
	for tid := range cfg.Threads {
		if err := setBit(objs.tids, tid, true); err != nil {
			return fail(fmt.Errorf("tracer: follow thread %d: %w", tid, err))
		}
	}
	cpus := cfg.CPUs
	if len(cpus) == 0 {
		for c := range int(objs.cpus.MaxEntries()) {
			cpus = append(cpus, c)
		}
	}
	for _, c := range cpus {
		if err := objs.cpus.Put(uint32(c), uint32(1)); err != nil {
			return fail(fmt.Errorf("tracer: CPU %d: %w", c, err))
		}
	}
	if t.rd, err = ringbuf.NewReader(objs.events); err != nil {
		return fail(kernelError("ring buffer reader", err))
	}
	return t, nil
}

// Follow adds a process (every thread of tgid) as component, for a process
// started after Open; it takes effect at once, started or not.
func (t *Tracer) Follow(tgid int, component string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return errClosed
	}
	if err := setFollowed(t.objs, &t.cfg, tgid, component, true); err != nil {
		return fmt.Errorf("tracer: follow process %d: %w", tgid, err)
	}
	t.cfg.Components[tgid] = component
	return nil
}

// setFollowed sets or clears a process's bits: followed, and its system calls
// recorded unless its component is in cfg.WithoutSyscalls.
func setFollowed(o *objects, cfg *Config, tgid int, component string, on bool) error {
	if err := setBit(o.tgids, tgid, on); err != nil {
		return err
	}
	return setBit(o.calls, tgid, on && cfg.syscalls(component))
}

// Unfollow stops following a process (every thread of tgid).
func (t *Tracer) Unfollow(tgid int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return errClosed
	}
	delete(t.cfg.Components, tgid)
	if err := setFollowed(t.objs, &t.cfg, tgid, "", false); err != nil {
		return fmt.Errorf("tracer: unfollow process %d: %w", tgid, err)
	}
	return nil
}

// FollowThread adds one thread, counted as a kernel thread of component
// (Config.Threads).
func (t *Tracer) FollowThread(tid int, component string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return errClosed
	}
	if err := setBit(t.objs.tids, tid, true); err != nil {
		return fmt.Errorf("tracer: follow thread %d: %w", tid, err)
	}
	t.cfg.Threads[tid] = component
	return nil
}

func (t *Tracer) unfollowThread(tid int) {
	setBit(t.objs.tids, tid, false)
	delete(t.cfg.Threads, tid)
}

var (
	errClosed  = errors.New("tracer: closed")
	errStarted = errors.New("tracer: already started")
	errStopped = errors.New("tracer: not started")
)

// Start attaches the programs and starts collecting. The Trace of the
// previous window is invalid from here on: its events are overwritten.
func (t *Tracer) Start() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.startLocked()
}

func (t *Tracer) startLocked() error {
	switch {
	case t.objs == nil:
		return errClosed
	case t.done != nil:
		return errStarted
	}
	// Records left from the last window (written after its detach) go.
	t.drain()
	t.events = t.events[:0]
	t.dropped, t.bad, t.readErr = 0, 0, nil
	if err := t.objs.lost.Put(uint32(0), uint64(0)); err != nil {
		return fmt.Errorf("tracer: reset lost counter: %w", err)
	}
	t.start = monotonicNow()
	if err := t.objs.attach(); err != nil {
		return err
	}
	t.done = make(chan struct{})
	go t.collect(t.done)
	return nil
}

// drain discards what the ring holds.
func (t *Tracer) drain() {
	var rec ringbuf.Record
	t.rd.SetDeadline(time.Now())
	for t.rd.ReadInto(&rec) == nil {
	}
}

// collect appends every record to t.events until Stop flushes the ring.
// It allocates nothing per record: ReadInto reuses rec's buffer, and the
// event is decoded in place into t.events' spare capacity, which grows by
// doubling up to MaxEvents.
func (t *Tracer) collect(done chan struct{}) {
	defer close(done)
	var rec ringbuf.Record
	t.rd.SetDeadline(time.Now().Add(PollInterval))
	for {
		err := t.rd.ReadInto(&rec)
		switch {
		case err == nil:
			if len(t.events) >= t.cfg.MaxEvents {
				t.dropped++
				continue
			}
			t.events = append(t.events, Event{})
			if t.events[len(t.events)-1].Decode(rec.RawSample) != nil {
				t.events = t.events[:len(t.events)-1]
				t.bad++
			}
		case errors.Is(err, os.ErrDeadlineExceeded):
			t.rd.SetDeadline(time.Now().Add(PollInterval))
		case errors.Is(err, ringbuf.ErrFlushed):
			return
		default:
			t.readErr = err
			return
		}
	}
}

// Stop detaches the programs, collects what the ring still holds and
// returns the window's trace, valid until the next Start.
func (t *Tracer) Stop() (*Trace, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopLocked()
}

func (t *Tracer) stopLocked() (*Trace, error) {
	if t.objs == nil {
		return nil, errClosed
	}
	if t.done == nil {
		return nil, errStopped
	}
	t.objs.detach()
	end := monotonicNow()
	err := t.rd.Flush()
	<-t.done
	t.done = nil
	if err != nil {
		return nil, fmt.Errorf("tracer: flush ring buffer: %w", err)
	}
	if t.readErr != nil {
		return nil, fmt.Errorf("tracer: read ring buffer: %w", t.readErr)
	}
	var lost uint64
	if err := t.objs.lost.Lookup(uint32(0), &lost); err != nil {
		return nil, fmt.Errorf("tracer: read lost counter: %w", err)
	}
	cfg := t.cfg
	cfg.Components = maps.Clone(t.cfg.Components)
	cfg.Threads = maps.Clone(t.cfg.Threads)
	return &Trace{
		Config: cfg, Events: t.events, Lost: lost, Dropped: t.dropped, Bad: t.bad,
		PerEvent: t.perEvent, Wakeup: t.objs.wakeup, Start: t.start, End: end,
	}, nil
}

// Close stops the tracer if started and releases its programs and maps.
// It is idempotent.
func (t *Tracer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return nil
	}
	if t.done != nil {
		t.stopLocked()
	}
	err := t.rd.Close()
	t.objs.close()
	t.objs = nil
	t.events = nil
	return err
}

// PerEvent is the calibrated cost of one record, 0 before Calibrate.
func (t *Tracer) PerEvent() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.perEvent
}

// Calibration's shape: rounds of calibrationBatches batches of
// calibrationCalls getppid(2) calls, untraced then traced. A batch is
// short enough (tens of µs) that most batches run without an interrupt
// or a preemption, so the fastest batch of each side is the call's own
// cost even on a loaded machine, where a mean would carry the load.
const (
	calibrationRounds  = 5
	calibrationBatches = 20
	calibrationCalls   = 500
)

// Calibrate measures what one record costs the traced task: getppid(2),
// the cheapest system call, in a tight loop on one locked thread, with
// the tracer detached and then attached and following that thread; each
// traced call makes two records (sys_enter, sys_exit), and the hooks' own
// cost (the system call's slow path once a tracepoint is attached) is
// included. Per round, the fastest batch of each side; the median round's
// difference is kept: later Traces take it off their segments
// (Segment.Tracer). The tracer must be stopped; the calibration thread is
// unfollowed afterwards.
func (t *Tracer) Calibrate(ctx context.Context) (time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return 0, errClosed
	}
	if t.done != nil {
		return 0, errStarted
	}
	type result struct {
		d   time.Duration
		err error
	}
	res := make(chan result, 1)
	go func() {
		// Unlocked again, not ended locked: a thread that ends takes the
		// parent-death signal of every child it forked
		// (affinity.NewGroup's Pdeathsig), and this may be one. It is
		// unfollowed by then, and its CPU mask is untouched.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d, err := t.calibrate(ctx)
		res <- result{d, err}
	}()
	r := <-res
	if r.err != nil {
		return 0, fmt.Errorf("tracer: calibrate: %w", r.err)
	}
	t.perEvent = r.d
	return r.d, nil
}

// calibrate runs Calibrate's rounds on the calling thread, which is
// locked, with t.mu held by Calibrate.
func (t *Tracer) calibrate(ctx context.Context) (time.Duration, error) {
	tid := syscall.Gettid()
	if err := setBit(t.objs.tids, tid, true); err != nil {
		return 0, fmt.Errorf("follow thread %d: %w", tid, err)
	}
	t.cfg.Threads[tid] = "calibration"
	defer t.unfollowThread(tid)
	loop := func() time.Duration {
		fastest := time.Duration(math.MaxInt64)
		for range calibrationBatches {
			begin := time.Now()
			for range calibrationCalls {
				syscall.Getppid()
			}
			fastest = min(fastest, time.Since(begin))
		}
		return fastest
	}
	var diffs []time.Duration
	for range calibrationRounds {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		untraced := loop()
		if err := t.startLocked(); err != nil {
			return 0, err
		}
		traced := loop()
		tr, err := t.stopLocked()
		if err != nil {
			return 0, err
		}
		if tr.Lost > 0 {
			return 0, fmt.Errorf("the ring lost %d records", tr.Lost)
		}
		diffs = append(diffs, (traced-untraced)/(2*calibrationCalls))
	}
	slices.Sort(diffs)
	return max(0, diffs[len(diffs)/2]), nil
}

// monotonicNow reads CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns.
func monotonicNow() uint64 {
	var ts syscall.Timespec
	// clock_gettime has no wrapper in package syscall; time.Now's
	// monotonic reading is not exposed as a clock value either.
	_, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, 1 /* CLOCK_MONOTONIC */, uintptr(unsafe.Pointer(&ts)), 0)
	if errno != 0 {
		return 0
	}
	return uint64(ts.Sec)*1e9 + uint64(ts.Nsec)
}
