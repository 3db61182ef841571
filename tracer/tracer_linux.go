package tracer

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/hoplat/hoplat/internal/osthread"
)

// Tracer records the scheduler and system-call events of the followed
// tasks while started. Its methods are safe to call from several
// goroutines; Start and Stop alternate.
type Tracer struct {
	mu       sync.Mutex
	cfg      Config
	objs     *objects
	events   []Event // reused by every window: a Trace is valid until the next Start
	started  bool
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
	objs, err := newObjects(cfg.BufferBytes, cfg.Hooks)
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
	case t.started:
		return errStarted
	}
	// Every CPU starts at its first slot; what the last window left in
	// the slots is overwritten or, past the new counts, never read.
	zero := make([]byte, 8*t.objs.next.MaxEntries())
	if _, err := t.objs.nextMem.WriteAt(zero, 0); err != nil {
		return fmt.Errorf("tracer: reset slot counts: %w", err)
	}
	t.start = monotonicNow()
	if err := t.objs.attach(); err != nil {
		return err
	}
	t.started = true
	return nil
}

// Stop detaches the programs, reads what each CPU recorded and returns
// the window's trace, valid until the next Start.
func (t *Tracer) Stop() (*Trace, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopLocked()
}

func (t *Tracer) stopLocked() (*Trace, error) {
	if t.objs == nil {
		return nil, errClosed
	}
	if !t.started {
		return nil, errStopped
	}
	t.objs.detach()
	t.started = false
	end := monotonicNow()
	tr := &Trace{PerEvent: t.perEvent, Wakeup: t.objs.wakeup, Start: t.start, End: end}
	if err := t.collect(tr); err != nil {
		return nil, err
	}
	cfg := t.cfg
	cfg.Components = maps.Clone(t.cfg.Components)
	cfg.Threads = maps.Clone(t.cfg.Threads)
	tr.Config = cfg
	return tr, nil
}

// collect decodes every CPU's records of the window into t.events, up to
// MaxEvents (the rest are Dropped); a CPU's records past its slots are
// Lost. A record stamped before the window's start is one a program
// still running when the last window was detached left behind, or a slot
// claimed but not yet written when this one was: it is Bad, as a record
// Decode refuses is.
func (t *Tracer) collect(tr *Trace) error {
	o := t.objs
	counts := make([]byte, 8*o.next.MaxEntries())
	if _, err := o.nextMem.ReadAt(counts, 0); err != nil {
		return fmt.Errorf("tracer: read slot counts: %w", err)
	}
	t.events = t.events[:0]
	var chunk [256 * EventSize]byte
	for cpu := range int(o.next.MaxEntries()) {
		n := binary.NativeEndian.Uint64(counts[8*cpu:])
		if n > uint64(o.perCPU) {
			tr.Lost += n - uint64(o.perCPU)
			n = uint64(o.perCPU)
		}
		base := int64(cpu) * int64(o.perCPU) * EventSize
		for done := uint64(0); done < n; {
			k := min(n-done, uint64(len(chunk)/EventSize))
			b := chunk[:k*EventSize]
			if _, err := o.eventsMem.ReadAt(b, base+int64(done)*EventSize); err != nil {
				return fmt.Errorf("tracer: read CPU %d's records: %w", cpu, err)
			}
			for ; len(b) > 0; b = b[EventSize:] {
				if len(t.events) >= t.cfg.MaxEvents {
					tr.Dropped++
					continue
				}
				t.events = append(t.events, Event{})
				e := &t.events[len(t.events)-1]
				if e.Decode(b[:EventSize]) != nil || e.Time < t.start {
					t.events = t.events[:len(t.events)-1]
					tr.Bad++
					continue
				}
				enter, exit, ok := e.Split()
				switch {
				case !ok:
				case enter.Time < t.start:
					// Entered before the window, as a lone exit says.
					*e = exit
				case len(t.events) >= t.cfg.MaxEvents:
					*e = exit
					tr.Dropped++
				default:
					*e = enter
					t.events = append(t.events, exit)
				}
			}
			done += k
		}
	}
	tr.Events = t.events
	return nil
}

// Close stops the tracer if started and releases its programs and maps.
// It is idempotent.
func (t *Tracer) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return nil
	}
	if t.started {
		t.stopLocked()
	}
	t.objs.close()
	t.objs = nil
	t.events = nil
	return nil
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
// traced call makes two events (its entry and exit, one KindSyscall
// record split), so the cost is per event as Assemble counts them, and the
// hooks' own cost (the system call's slow path once a tracepoint is
// attached) is included. Per round, the fastest batch of each side; the median round's
// difference is kept: later Traces take it off their segments
// (Segment.Tracer). The tracer must be stopped; the calibration thread is
// unfollowed afterwards.
func (t *Tracer) Calibrate(ctx context.Context) (time.Duration, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.objs == nil {
		return 0, errClosed
	}
	if t.started {
		return 0, errStarted
	}
	d, err := osthread.Run(func() (time.Duration, error, bool) {
		// Handed back, not ended: a thread that ends takes the
		// parent-death signal of every child it forked
		// (affinity.NewGroup's Pdeathsig), and this may be one. It is
		// unfollowed by then, and its CPU mask is untouched.
		d, err := t.calibrate(ctx)
		return d, err, true
	})
	if err != nil {
		return 0, fmt.Errorf("tracer: calibrate: %w", err)
	}
	t.perEvent = d
	return d, nil
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
	// What a call of the loop records: a getppid(2), its entry and exit;
	// with ProxyHooks, a byte's round over a loopback TCP connection (its
	// send, its softirq, its arrival, its receive), counted from the trace.
	loop := func() time.Duration { return fastestGetppid(calibrationBatches, calibrationCalls) }
	calls, perCall := calibrationCalls, 2.0
	if t.cfg.Hooks == ProxyHooks {
		pair, err := newLoopbackPair()
		if err != nil {
			return 0, err
		}
		defer pair.close()
		calls, perCall = proxyCalibrationCalls, 0
		loop = func() time.Duration { return pair.fastest(calibrationBatches, calls) }
		pair.fastest(1, 1) // the receiving socket's first receive enters it in socks
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
			return 0, fmt.Errorf("the buffer lost %d records", tr.Lost)
		}
		per := perCall
		if per == 0 {
			per = float64(len(tr.Events)) / float64(calibrationBatches*calls)
		}
		if per <= 0 {
			return 0, errors.New("the calibration loop made no records")
		}
		diffs = append(diffs, time.Duration(float64(traced-untraced)/(per*float64(calls))))
	}
	slices.Sort(diffs)
	return max(0, diffs[len(diffs)/2]), nil
}

// proxyCalibrationCalls is ProxyHooks' calls per batch: a byte's round
// over loopback TCP costs some µs, a getppid(2) some tens of ns.
const proxyCalibrationCalls = 50

// loopbackPair is a TCP connection over loopback whose two ends the
// calibration thread writes and reads itself, blocking.
type loopbackPair struct{ w, r int }

func newLoopbackPair() (*loopbackPair, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	defer ln.Close()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		return nil, err
	}
	defer c.Close()
	s, err := ln.Accept()
	if err != nil {
		return nil, err
	}
	defer s.Close()
	p := &loopbackPair{w: -1, r: -1}
	for _, e := range []struct {
		c   net.Conn
		dst *int
	}{{c, &p.w}, {s, &p.r}} {
		f, err := e.c.(*net.TCPConn).File() // a dup of the socket, blocking
		if err != nil {
			p.close()
			return nil, err
		}
		fd, err := syscall.Dup(int(f.Fd()))
		f.Close()
		if err != nil {
			p.close()
			return nil, os.NewSyscallError("dup", err)
		}
		*e.dst = fd
		if err := syscall.SetNonblock(fd, false); err != nil {
			p.close()
			return nil, os.NewSyscallError("fcntl", err)
		}
	}
	return p, nil
}

func (p *loopbackPair) close() {
	for _, fd := range []int{p.w, p.r} {
		if fd >= 0 {
			syscall.Close(fd)
		}
	}
}

// fastest runs batches of calls rounds of one byte and returns the
// fastest batch's time.
func (p *loopbackPair) fastest(batches, calls int) time.Duration {
	var b [1]byte
	fastest := time.Duration(math.MaxInt64)
	for range batches {
		begin := time.Now()
		for range calls {
			syscall.Write(p.w, b[:])
			syscall.Read(p.r, b[:])
		}
		fastest = min(fastest, time.Since(begin))
	}
	return fastest
}

// fastestGetppid runs batches of calls getppid(2) calls on the calling
// thread and returns the fastest batch's time.
func fastestGetppid(batches, calls int) time.Duration {
	fastest := time.Duration(math.MaxInt64)
	for range batches {
		begin := time.Now()
		for range calls {
			syscall.Getppid()
		}
		fastest = min(fastest, time.Since(begin))
	}
	return fastest
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
