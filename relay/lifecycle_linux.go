package relay

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/sockets"
)

// loopSet is what every thread that watches the listener in its own epoll
// set keeps, whatever it does with the connections it accepts: an event
// loop of the epoll and splice engines, the sockmap engine's thread, a
// router loop. It owns the set and the eventfd that wakes the thread, and
// answers the shutdown order through its acceptGate.
type loopSet struct {
	r        *Relay
	ln       *sockets.FD
	lnEvents uint32 // the listener's registration: EPOLLEXCLUSIVE where several threads share it
	epfd     int
	wake     int // eventfd that serve writes to make the thread look at its flags

	acceptGate acceptGate
	force      atomic.Bool
	accepted   atomic.Int64
	dials      []*sockets.RawDialer // one per upstream, the pool's order; this thread's own copies
	live       int                  // connections (sessions) the thread owns
	idle       bool                 // the last raw wait found nothing for idleWait (wait)
}

// loopThread is an event loop serveLoops runs: its thread's body, its set
// for the shutdown order, and closeFDs, which closes the set's descriptors
// and whatever else of the loop's outlives its thread.
type loopThread interface {
	run() error
	set() *loopSet
	closeFDs()
}

func (t *loopSet) set() *loopSet { return t }

// loopGroup is what the engines of event loops (epoll, splice, the
// router) share: the listener every loop watches with EPOLLEXCLUSIVE, the
// upstreams' dialers, resolved once, and the loops.
type loopGroup[L loopThread] struct {
	r     *Relay
	ln    *sockets.FD
	dials []*sockets.RawDialer // the upstreams; each loop dials with its own copies
	loops []L
}

// listen opens the group's listener (rawListen) and resolves the
// upstreams (rawDialers); on an error nothing is left open.
func (g *loopGroup[L]) listen(r *Relay) error {
	ln, err := r.rawListen()
	if err != nil {
		return err
	}
	dials, err := r.rawDialers()
	if err != nil {
		ln.Close()
		return err
	}
	g.r, g.ln, g.dials = r, ln, dials
	return nil
}

// addLoops makes Config.Workers loops with newLoop; on an error it closes
// those made and the listener.
func (g *loopGroup[L]) addLoops(newLoop func(id int) (L, error)) error {
	for i := range g.r.cfg.Workers {
		l, err := newLoop(i)
		if err != nil {
			g.closeListener()
			return err
		}
		g.loops = append(g.loops, l)
	}
	return nil
}

// openLoop opens loop id's set (loopSet.open) on the group's listener,
// with its own copies of the dialers; name is the loop's in errors.
func (g *loopGroup[L]) openLoop(t *loopSet, name string, id int) error {
	if err := t.open(g.r, g.ln, unix.EPOLLIN|unix.EPOLLEXCLUSIVE, copyDialers(g.dials)); err != nil {
		t.closeFDs()
		return fmt.Errorf("relay: %s %d: %w", name, id, err)
	}
	return nil
}

// closeListener releases everything when Serve never ran.
func (g *loopGroup[L]) closeListener() { closeLoops(g.ln, g.loops) }

func (g *loopGroup[L]) serve(stop, force <-chan struct{}) error {
	return serveLoops(g.ln, g.loops, stop, force)
}

// serveLoops is serve for engines of event loops (epoll, splice, the
// router): each loop runs on a goroutine of its own until stop (or until
// every loop has returned), then accepting stops in the shutdown order
// (stopAccepting) and the loops end their connections; force tells each
// to return at once. The epoll and event fds outlive their loops until
// here, so that a wakeup never writes to a descriptor number already
// reused.
func serveLoops[L loopThread](ln *sockets.FD, loops []L, stop, force <-chan struct{}) error {
	errs := make([]error, len(loops))
	var wg sync.WaitGroup
	for i, l := range loops {
		wg.Go(func() { errs[i] = l.run() })
	}
	allDone := make(chan struct{})
	go func() { wg.Wait(); close(allDone) }()

	select {
	case <-stop:
	case <-allDone:
	}
	threads := make([]acceptThread, len(loops))
	for i, l := range loops {
		threads[i] = l.set()
	}
	stopAccepting(ln, threads...)
	select {
	case <-allDone:
	case <-force:
		for _, l := range loops {
			l.set().force.Store(true)
			l.set().wakeup()
		}
		<-allDone
	}
	closeLoops(nil, loops)
	return errors.Join(errs...)
}

// loopRecorders are the recorders rec picks from each loop, the loops
// without one (Config.Stats off) left out.
func loopRecorders[L any](loops []L, rec func(L) *recorder) []*recorder {
	var recs []*recorder
	for _, l := range loops {
		if r := rec(l); r != nil {
			recs = append(recs, r)
		}
	}
	return recs
}

// closeLoops closes every loop's epoll set and eventfd, and ln unless nil:
// everything, when serve never ran.
func closeLoops[L loopThread](ln *sockets.FD, loops []L) {
	for _, l := range loops {
		l.closeFDs()
	}
	if ln != nil {
		ln.Close()
	}
}

// lifecycle is the accept/connect/redial lifecycle that the byte relays'
// raw-fd engines share, run by one thread that watches the listener in its
// own epoll set: an event loop of the epoll and splice engines, the sockmap
// engine's thread. It accepts (acceptConns), starts each connection's
// non-blocking connect to the upstream the pool picks, finishes it
// (connectDone), moves on to the next upstream when it fails
// (nextUpstream), and ends the connection (retire). The engine keeps what
// it does with a connection once connected; C is its connection type, held
// in slots.
//
// A connection's sockets are registered with id slot*2+side and the slot's
// generation (ctl), so that an event queued for a connection closed earlier
// in the same batch is not applied to the one that reuses its slot.
type lifecycle[C any] struct {
	loopSet

	slots []*C
	free  []int32
	gen   int32
}

// ends are what the lifecycle keeps of each connection: its two sockets
// and its place in the upstream pool.
type ends struct {
	sock  [2]*sockets.FD // client, upstream
	up    int            // the pool's index of sock[1]'s upstream; -1 once released
	tried uint64         // upstreams this connection has tried (bit i: pool index i)
}

// open creates the thread's epoll set and wake eventfd and puts both the
// eventfd and the listener (with lnEvents) in it. On an error the caller
// still calls closeFDs.
func (t *loopSet) open(r *Relay, ln *sockets.FD, lnEvents uint32, dials []*sockets.RawDialer) error {
	t.r, t.ln, t.lnEvents, t.dials = r, ln, lnEvents, dials
	t.epfd, t.wake = -1, -1
	t.acceptGate = newAcceptGate()
	var err error
	if t.epfd, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	if t.wake, err = unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC); err != nil {
		return os.NewSyscallError("eventfd", err)
	}
	if err := t.ctl(unix.EPOLL_CTL_ADD, t.wake, unix.EPOLLIN, idWake, 0); err != nil {
		return os.NewSyscallError("epoll_ctl add eventfd", err)
	}
	if err := t.ctl(unix.EPOLL_CTL_ADD, ln.Sysfd(), lnEvents, idListener, 0); err != nil {
		return os.NewSyscallError("epoll_ctl add listener", err)
	}
	return nil
}

// closeFDs closes the epoll set and the eventfd; they outlive the thread
// until serve has stopped it, so that a wakeup never writes to a
// descriptor number already reused.
func (t *loopSet) closeFDs() {
	for _, fd := range []*int{&t.epfd, &t.wake} {
		if *fd >= 0 {
			unix.Close(*fd)
			*fd = -1
		}
	}
}

func (t *loopSet) ctl(op, fd int, events uint32, id, gen int32) error {
	ev := unix.EpollEvent{Events: events, Fd: id, Pad: gen}
	return unix.EpollCtl(t.epfd, op, fd, &ev)
}

// wakeup makes the thread's epoll_wait return.
func (t *loopSet) wakeup() {
	one := [8]byte{1}
	unix.Write(t.wake, one[:])
}

// drainWake reads the eventfd that wakeup wrote to, so that it stops
// polling readable.
func drainWake(wake int) {
	var b [8]byte
	unix.Read(wake, b[:])
}

// startThread readies the calling goroutine to be event loop id: it holds
// a P of its own (sockets.HoldP; the caller defers release) and locks the
// goroutine to its thread, which gets its own time slice (slice.go;
// granted is what the kernel said) and, where Config.CPUs names CPUs, the
// id-th of them (wrapping) as its mask. The thread is never handed back to
// the scheduler: the goroutine exits still locked and the runtime retires
// the thread with both. name is the loop's name in log lines.
func (t *loopSet) startThread(name string, id int) (release func(), granted string) {
	release = sockets.HoldP()
	runtime.LockOSThread()
	granted = setSlice(t.r.cfg)
	if cpus := t.r.cfg.CPUs; len(cpus) > 0 {
		if _, err := affinity.PinThread(affinity.NewCPUSet(cpus[id%len(cpus)])); err != nil {
			t.r.cfg.Logf("relay: %s %d: %v", name, id, err)
		}
	}
	return release, granted
}

// wait is an event loop's epoll_wait (loop.run says why it waits so): raw,
// bounded by idleWait where timeout is -1, while the thread is not idle,
// timeout is 0 or -1 and a P is to spare; otherwise through the scheduler,
// which lets sysmon and the P rest, and the first event after it brings
// the raw waits back. A raw wait that ends empty after idleWait makes the
// thread idle. sockets.ErrInterrupted: a raw wait was interrupted
// (sysmon's preemption), and the caller waits again.
func (t *loopSet) wait(events []unix.EpollEvent, timeout int) (int, error) {
	if !t.idle && timeout <= 0 && sockets.SpareP() {
		w := timeout
		if w < 0 {
			w = idleWait
		}
		n, err := sockets.EpollWait(t.epfd, events, w)
		if err == nil && n == 0 && timeout < 0 {
			t.idle = true
		}
		return n, err
	}
	t.idle = false
	n, err := unix.EpollWait(t.epfd, events, timeout)
	if err == unix.EINTR {
		return 0, nil
	}
	if err != nil {
		return n, os.NewSyscallError("epoll_wait", err)
	}
	return n, nil
}

func (t *loopSet) gate() *acceptGate { return &t.acceptGate }

func (t *loopSet) ackStopAccept() { t.acceptGate.ack(t.epfd, t.ln.Sysfd()) }

func (t *loopSet) resumeAccept() {
	t.acceptGate.resume(func() error { return t.ctl(unix.EPOLL_CTL_ADD, t.ln.Sysfd(), t.lnEvents, idListener, 0) })
}

// done is the thread's check after each wait: true once serve has asked
// it to stop accepting (answered here) and its last connection has ended.
func (t *loopSet) done() bool {
	return t.acceptGate.answerStop(t.epfd, t.ln.Sysfd()) && t.live == 0
}

// carryOn is an event loop's last step after a wait that returned n
// events for timeout: accepting resumes after a wait of a paused loop
// (timeout > 0) that timed out; false, the loop returns: shutdown is
// forced, or accepting has stopped and its last connection ended (done).
func (t *loopSet) carryOn(n, timeout int) bool {
	if n == 0 && timeout > 0 && t.acceptGate.mayResume() {
		t.resumeAccept()
	}
	return !t.force.Load() && !t.done()
}

// acceptBatch bounds accepts per wake-up, so that a burst of connections
// is shared with the other loops (the listener is level-triggered: what is
// left wakes a loop again).
const acceptBatch = 8

// acceptNext accepts the next connection the listener has queued; nil when
// there is none, or accepting failed (logged; on running out of
// descriptors or memory accepting pauses).
func (t *loopSet) acceptNext() *sockets.FD {
	r := t.r
	cfd, err := t.ln.Accept()
	if err == nil {
		return cfd
	}
	if errors.Is(err, sockets.ErrWouldBlock) {
		return nil
	}
	if errors.Is(err, unix.EMFILE) || errors.Is(err, unix.ENFILE) || errors.Is(err, unix.ENOBUFS) || errors.Is(err, unix.ENOMEM) {
		// Level-triggered, the listener would wake this thread at once
		// again: take it out until a connection closes or 100 ms pass.
		r.cfg.Logf("relay: accept on %s: %v (pausing accepts)", r.bound, err)
		t.acceptGate.pause(t.epfd, t.ln.Sysfd())
		return nil
	}
	r.cfg.Logf("relay: accept on %s: %v", r.bound, err)
	return nil
}

// acceptConns accepts what the listener has queued, up to acceptBatch, and
// hands each connection whose upstream connect has started to add.
func (t *lifecycle[C]) acceptConns(add func(cfd, ufd *sockets.FD, up int, tried uint64)) {
	for range acceptBatch {
		cfd := t.acceptNext()
		if cfd == nil {
			return
		}
		if ufd, up, tried := t.r.connectUpstream(cfd, t.dials, &t.accepted); ufd != nil {
			add(cfd, ufd, up, tried)
		}
	}
}

// put gives connection c a slot and a new generation.
func (t *lifecycle[C]) put(c *C) (slot, gen int32) {
	if n := len(t.free); n > 0 {
		slot = t.free[n-1]
		t.free = t.free[:n-1]
	} else {
		slot = int32(len(t.slots))
		t.slots = append(t.slots, nil)
	}
	t.slots[slot] = c
	t.live++
	return slot, t.nextGen()
}

func (t *lifecycle[C]) nextGen() int32 {
	t.gen++
	return t.gen
}

// lookup is the connection and side an event's id names, nil when the slot
// is out of range or empty.
func (t *lifecycle[C]) lookup(id int32) (*C, int) {
	slot, side := id/2, int(id%2)
	if int(slot) >= len(t.slots) {
		return nil, side
	}
	return t.slots[slot], side
}

// register puts x's sockets in the epoll set as slot's, generation gen,
// each for events[side]: both added for a new connection; after a redial
// the client's registration changed and the new upstream socket added.
// A failure is logged; the caller then closes the connection.
func (t *lifecycle[C]) register(x *ends, slot, gen int32, events [2]uint32, redial bool) bool {
	for side, s := range x.sock {
		op, name := unix.EPOLL_CTL_ADD, "add"
		if redial && side == 0 {
			op, name = unix.EPOLL_CTL_MOD, "mod"
		}
		if err := t.ctl(op, s.Sysfd(), events[side], slot*2+int32(side), gen); err != nil {
			t.r.cfg.Logf("relay: epoll_ctl %s: %v", name, err)
			return false
		}
	}
	return true
}

// connectDone finishes the non-blocking connect of x's upstream once its
// socket polled writable. A refused or failed connect is the pool's (it
// skips that upstream a while), logged with both ends, and x's upstream
// released: the caller moves on with nextUpstream.
func (t *lifecycle[C]) connectDone(x *ends) bool {
	r := t.r
	if err := x.sock[1].ConnectResult(); err != nil {
		r.pool.failed(x.up, err)
		r.cfg.Logf("relay: %s -> %s: upstream %s: %v", peerName(x.sock[0].Sysfd()), r.bound, r.pool.addr(x.up).NetAddr(), err)
		x.up = -1
		return false
	}
	r.pool.connected(x.up)
	return true
}

// nextUpstream replaces x's upstream socket, whose connect failed, with a
// connect to the next upstream. It returns false, counted as failed, once
// every upstream has been tried; the caller then closes the connection.
// Otherwise the caller gives the connection a new generation and registers
// it again (register), so that events of the old socket still queued in
// this wait's batch are dropped.
func (t *lifecycle[C]) nextUpstream(x *ends) bool {
	r := t.r
	ufd, up := r.dialNext(x.sock[0].Sysfd(), t.dials, &x.tried)
	if ufd == nil {
		r.counters.upstreamFailed.Add(1)
		return false
	}
	x.sock[1].Close() // and out of the epoll set
	x.sock[1], x.up = ufd, up
	return true
}

// retire ends the connection in slot. After a reset on one side the other
// is reset too (SO_LINGER 0), so the peer learns of the failure as it
// would have without the relay. Closing the sockets takes them out of the
// epoll set (and of any sockmap); the upstream goes back to the pool, and
// accepting resumes if it waited for a descriptor.
func (t *lifecycle[C]) retire(slot int32, x *ends, cause error) {
	if errors.Is(cause, unix.ECONNRESET) {
		lingerZero := &unix.Linger{Onoff: 1, Linger: 0}
		for _, s := range x.sock {
			unix.SetsockoptLinger(s.Sysfd(), unix.SOL_SOCKET, unix.SO_LINGER, lingerZero)
		}
	}
	for _, s := range x.sock {
		s.Close()
	}
	if x.up >= 0 {
		t.r.pool.done(x.up)
		x.up = -1
	}
	t.slots[slot] = nil
	t.free = append(t.free, slot)
	t.live--
	t.r.release()
	if t.acceptGate.mayResume() {
		t.resumeAccept()
	}
}

// connectUpstream admits a client socket a raw-fd engine accepted and
// starts a connect for it to the upstream the pool picks, with the
// engine's dialers (one per upstream, resolved when it started). It
// returns nil when the connection is refused (max-conns) or every upstream
// fails at once: then cfd is closed and the refusal counted and logged.
func (r *Relay) connectUpstream(cfd *sockets.FD, dials []*sockets.RawDialer, accepted *atomic.Int64) (ufd *sockets.FD, up int, tried uint64) {
	if !r.admitClient(cfd, accepted) {
		return nil, -1, 0
	}
	ufd, up = r.dialNext(cfd.Sysfd(), dials, &tried)
	if ufd == nil {
		r.counters.upstreamFailed.Add(1)
		cfd.Close()
		r.release()
		return nil, -1, 0
	}
	return ufd, up, tried
}

// admitClient admits a client socket a raw-fd engine accepted, counting it
// in accepted and setting its TCP_NODELAY as the listen address says, or
// refuses it (max-conns): then cfd is closed and the refusal logged.
func (r *Relay) admitClient(cfd *sockets.FD, accepted *atomic.Int64) bool {
	if !r.admit() {
		r.cfg.Logf("relay: %s -> %s: refused: %d connections live (max-conns)", peerName(cfd.Sysfd()), r.bound, r.cfg.MaxConns)
		cfd.Close()
		return false
	}
	accepted.Add(1)
	if !r.listen.IsUnix() {
		cfd.SetNoDelay(r.listen.Opts.NoDelay != sockets.Off)
	}
	return true
}

// dialNext starts a non-blocking connect to the upstream the pool picks
// for a connection that has tried those in *tried, and on to the next
// while connect(2) fails at once (a UNIX path with no listener; a TCP
// refusal usually arrives later, at connected). It returns nil and -1
// once every upstream has been tried.
func (r *Relay) dialNext(client int, dials []*sockets.RawDialer, tried *uint64) (*sockets.FD, int) {
	p := r.pool
	for {
		i := p.pick(*tried)
		if i < 0 {
			return nil, -1
		}
		*tried |= 1 << i
		ufd, err := dials[i].Dial()
		if err == nil {
			return ufd, i
		}
		p.failed(i, err)
		r.cfg.Logf("relay: %s -> %s: upstream %s: %v", peerName(client), r.bound, p.addr(i).NetAddr(), err)
	}
}

// rawListen opens a raw-fd engine's listener (sockets.RawListen) and keeps
// the address it bound as r.bound, for log lines and the stats: any role,
// a wildcard's host named as a client would dial it, no options.
func (r *Relay) rawListen() (*sockets.FD, error) {
	ln, bound, err := sockets.RawListen(r.listen)
	if err != nil {
		return nil, err
	}
	bound.Role = sockets.RoleAny
	if !bound.IsUnix() && bound.Host == "" {
		bound.Host = bound.ListenHost()
	}
	bound.Opts = sockets.Options{}
	r.bound = bound
	return ln, nil
}

// rawDialers resolves every upstream for a raw-fd engine.
func (r *Relay) rawDialers() ([]*sockets.RawDialer, error) {
	dials := make([]*sockets.RawDialer, len(r.pool.ups))
	for i := range r.pool.ups {
		a := r.pool.addr(i)
		d, err := sockets.NewRawDialer(a)
		if err != nil {
			return nil, fmt.Errorf("relay: upstream %s: %w", a, err)
		}
		dials[i] = d
	}
	return dials, nil
}

// copyDialers gives another thread its own copies (RawDialer is for one
// goroutine).
func copyDialers(dials []*sockets.RawDialer) []*sockets.RawDialer {
	out := make([]*sockets.RawDialer, len(dials))
	for i, d := range dials {
		out[i] = d.Copy()
	}
	return out
}

// peerName is the client's address for log lines.
func peerName(fd int) string {
	sa, err := unix.Getpeername(fd)
	if err != nil {
		return "?"
	}
	switch v := sa.(type) {
	case *unix.SockaddrInet4:
		return net.JoinHostPort(net.IP(v.Addr[:]).String(), strconv.Itoa(v.Port))
	case *unix.SockaddrInet6:
		return net.JoinHostPort(net.IP(v.Addr[:]).String(), strconv.Itoa(v.Port))
	case *unix.SockaddrUnix:
		if v.Name == "" {
			return "unix:(unnamed)"
		}
		return "unix:" + v.Name
	}
	return "?"
}
