package relay

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/sockets"
)

// routeEngine is the MySQL router (Config.Route conn and rw) on the epoll
// engine's design: Workers event loops, each a goroutine locked to its own
// OS thread with its own epoll set, every socket created non-blocking by
// the engine so that Go's netpoller never sees it, the one listener in
// every set with EPOLLEXCLUSIVE. A loop owns each session it accepts, with
// the client's socket and every upstream socket the session opens, for the
// session's life; a session is a state machine (route_session_linux.go)
// that every event on any of its sockets drives as far as the bytes
// buffered allow.
type routeEngine struct {
	loopGroup[*routeLoop]
	conns atomic.Uint32 // connection ids for greetings
	// ext holds, per upstream, extSeen and the MariaDB extended
	// capabilities of the last greeting it sent the router.
	ext [maxRouteUpstreams]atomic.Uint64
}

// routerExt are the MariaDB extended capabilities a router passes on
// between its client and its backends: each changes only what the tracker
// reads rightly with it (CACHE_METADATA's byte after a column count) or
// never reads (EXTENDED_METADATA's column definitions). PROGRESS (reports
// sent as ERR packets mid-statement) and the bulk commands are not passed.
const routerExt = wire.ExtCapCacheMetadata | wire.ExtCapExtendedMetadata

// extSeen marks an upstream whose greeting the router has read.
const extSeen = 1 << 32

// offerExt is what of routerExt a greeting offers a client: what every
// upstream's last greeting offered, once each has greeted the router, and
// nothing before, so that no client negotiates a packet format one of the
// backends it may be routed to would not speak.
func (e *routeEngine) offerExt() uint32 {
	ext := uint32(routerExt)
	for i := range e.r.pool.ups {
		v := e.ext[i].Load()
		if v&extSeen == 0 {
			return 0
		}
		ext &= uint32(v)
	}
	return ext
}

// sawExt records the extended capabilities upstream up's greeting offered.
func (e *routeEngine) sawExt(up int, ext uint32) {
	if up >= 0 && up < len(e.ext) {
		e.ext[up].Store(extSeen | uint64(ext))
	}
}

func newRouteEngine(r *Relay) (engine, error) {
	if len(r.pool.ups) > maxRouteUpstreams {
		return nil, fmt.Errorf("relay: route %s: %d upstreams: at most %d", r.cfg.Route, len(r.pool.ups), maxRouteUpstreams)
	}
	e := &routeEngine{}
	if err := e.listen(r); err != nil {
		return nil, err
	}
	r.wake = wakeChoice{Strategy: "sleep", Rule: WakeRouter}
	r.batch = "off (the router reads whole packets)"
	if err := e.addLoops(func(id int) (*routeLoop, error) { return newRouteLoop(e, id) }); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *routeEngine) recorders() []*recorder {
	return loopRecorders(e.loops, func(l *routeLoop) *recorder { return l.rec })
}

func (e *routeEngine) loopStats() []LoopStats {
	out := make([]LoopStats, len(e.loops))
	for i, l := range e.loops {
		out[i].Accepted = l.accepted.Load()
	}
	return out
}

// routeLoop is one event loop and the sessions it owns. Each socket it
// watches is registered with the index of its entry in ents, and the
// entry's generation, so that an event queued for a socket closed earlier
// in the same batch is not applied to the one that reuses the entry.
type routeLoop struct {
	loopSet // the listener, the epoll set, the wake eventfd (lifecycle_linux.go)
	e       *routeEngine
	id      int

	ents     []routeEnt
	freeEnts []int32
	gen      int32
	rec      *recorder
	now      int64 // clock at the last wake-up with events
	replica  int   // the replica the next rw session reads from, round robin
}

// routeEnt is a registered socket: side -1 is the session's client, i >= 0
// its upstream i.
type routeEnt struct {
	s    *session
	side int
	gen  int32
}

func newRouteLoop(e *routeEngine, id int) (*routeLoop, error) {
	l := &routeLoop{e: e, id: id}
	if err := e.openLoop(&l.loopSet, "route loop", id); err != nil {
		return nil, err
	}
	if e.r.cfg.Stats {
		l.rec = newRecorder()
	}
	return l, nil
}

// sockEvents is what every socket of a session is registered for:
// edge-triggered, both directions at once, so that no epoll_ctl is made
// per pause and resume.
const sockEvents = unix.EPOLLIN | unix.EPOLLOUT | unix.EPOLLRDHUP | unix.EPOLLET

// register adds fd to the loop's set for session s's side.
func (l *routeLoop) register(fd *sockets.FD, s *session, side int) (int32, error) {
	var id int32
	if n := len(l.freeEnts); n > 0 {
		id = l.freeEnts[n-1]
		l.freeEnts = l.freeEnts[:n-1]
	} else {
		id = int32(len(l.ents))
		l.ents = append(l.ents, routeEnt{})
	}
	l.gen++
	l.ents[id] = routeEnt{s: s, side: side, gen: l.gen}
	if err := l.ctl(unix.EPOLL_CTL_ADD, fd.Sysfd(), sockEvents, id, l.gen); err != nil {
		l.ents[id] = routeEnt{}
		l.freeEnts = append(l.freeEnts, id)
		return -1, os.NewSyscallError("epoll_ctl add", err)
	}
	return id, nil
}

// unregister frees entry id; closing its socket takes it out of the set.
func (l *routeLoop) unregister(id int32) {
	if id < 0 {
		return
	}
	l.ents[id] = routeEnt{}
	l.freeEnts = append(l.freeEnts, id)
}

// run is the loop's thread; it returns when shutdown is forced, or once
// accepting has stopped and its last session has ended.
//
// It waits as the epoll engine's loop does (loop.run says why): raw
// epoll_wait calls, bounded by idleWait, while a P is to spare, so that the
// runtime never sees the thread enter a syscall on the steady path; idle,
// or with no P to spare, through the scheduler.
func (l *routeLoop) run() error {
	release, _ := l.startThread("route loop", l.id)
	defer release()
	defer l.ackStopAccept()
	defer l.closeAll()
	events := make([]unix.EpollEvent, 256)
	for {
		timeout := -1
		if l.e.r.cfg.Spin {
			timeout = 0
		} else if l.acceptGate.paused {
			timeout = 100
		}
		n, err := l.wait(events, timeout)
		if err == sockets.ErrInterrupted {
			continue
		}
		if err != nil {
			return fmt.Errorf("relay: route loop %d: %w", l.id, err)
		}
		if n > 0 {
			l.now = nanotime()
		}
		// dispatch's switch, written out: dispatch would call l.event
		// through a func value on every event.
		for i := range events[:n] {
			ev := &events[i]
			switch ev.Fd {
			case idListener:
				l.accept()
			case idWake:
				drainWake(l.wake)
			default:
				l.event(ev.Fd, ev.Pad, ev.Events)
			}
		}
		if !l.carryOn(n, timeout) {
			return nil
		}
	}
}

// accept takes what the listener has queued, up to acceptBatch, and greets
// each client.
func (l *routeLoop) accept() {
	r := l.r
	for range acceptBatch {
		cfd := l.acceptNext()
		if cfd == nil {
			return
		}
		if !r.admitClient(cfd, &l.accepted) {
			continue
		}
		s := newSession(l, cfd)
		id, err := l.register(cfd, s, -1)
		if err != nil {
			r.cfg.Logf("relay: %v", err)
			cfd.Close()
			r.release()
			continue
		}
		s.cli.ent = id
		l.live++
		s.greet()
	}
}

func (l *routeLoop) event(id, gen int32, ev uint32) {
	if id < 0 || int(id) >= len(l.ents) {
		return
	}
	en := l.ents[id]
	if en.s == nil || en.gen != gen {
		return
	}
	en.s.event(en.side, ev)
}

// sessionEnded is a session's last call: its sockets are closed.
func (l *routeLoop) sessionEnded() {
	l.live--
	l.e.r.release()
	if l.acceptGate.mayResume() {
		l.resumeAccept()
	}
}

func (l *routeLoop) closeAll() {
	for i := range l.ents {
		if en := l.ents[i]; en.s != nil && en.side < 0 {
			en.s.close()
		}
	}
}

// pconn is one socket of a session with its buffers: in holds bytes read
// and not yet consumed (in[r:w]), out bytes to send. A frame is handed out
// only whole: a packet's header and its whole payload.
type pconn struct {
	fd   *sockets.FD
	ent  int32
	in   []byte
	r, w int
	out  []byte
	more bool // the last fill stopped with in full: the socket may hold more
	// hup: epoll reported a FIN or an error behind the data. Its edge
	// comes once, so it is kept until the socket reads its end: a fill
	// that stopped with in full, resumed once the frames are consumed,
	// must read on past a short read to the end, or no event would ever
	// say it is there.
	hup bool
	eof bool // the peer ended its side, or the socket failed (err)
	err error
}

// frame is the next whole frame buffered, header included, or nil.
func (p *pconn) frame() []byte {
	if p.w-p.r < 4 {
		return nil
	}
	h := p.in[p.r:]
	n := int(h[0]) | int(h[1])<<8 | int(h[2])<<16
	if p.w-p.r < 4+n {
		return nil
	}
	return p.in[p.r : p.r+4+n]
}

// nextFrame is frame, reading on first when the last fill stopped with in
// full of whole frames, all consumed since.
func (p *pconn) nextFrame(limit int) []byte {
	if f := p.frame(); f != nil || !p.more {
		return f
	}
	p.fill(false, limit)
	return p.frame()
}

// next consumes frame f, which frame returned.
func (p *pconn) next(f []byte) {
	p.r += len(f)
	if p.r == p.w {
		p.r, p.w = 0, 0
	}
}

// headNeeds is how many bytes the frame at r needs buffered in all.
func (p *pconn) headNeeds() int {
	if p.w-p.r < 4 {
		return 4
	}
	h := p.in[p.r:]
	return 4 + (int(h[0]) | int(h[1])<<8 | int(h[2])<<16)
}

// errFrameTooLarge refuses a frame longer than the session allows (before
// login, a handshake's worth).
var errFrameTooLarge = errors.New("relay: route: packet too large")

// fill reads what the socket holds, as far as in has room, growing in only
// for a frame longer than it (up to limit bytes with its header): memory
// grows with the bytes that arrive, never with a length a header claims.
// A read shorter than the room means the queue is empty, unless hup says
// a FIN or an error waits behind the data (epoll(7)): then it reads on.
func (p *pconn) fill(hup bool, limit int) {
	p.more = false
	p.hup = p.hup || hup
	for !p.eof {
		if p.w == len(p.in) {
			if p.r > 0 {
				p.w = copy(p.in, p.in[p.r:p.w])
				p.r = 0
			} else {
				need := p.headNeeds()
				if need <= len(p.in) {
					p.more = true // full of whole frames: consume first
					return
				}
				if need > limit {
					p.eof, p.err = true, errFrameTooLarge
					return
				}
				nb := make([]byte, min(max(2*len(p.in), 4096), need))
				p.w = copy(nb, p.in[p.r:p.w])
				p.r = 0
				p.in = nb
			}
		}
		room := len(p.in) - p.w
		n, err := sockets.RecvNonblock(p.fd.Sysfd(), p.in[p.w:])
		if n > 0 {
			p.w += n
			if p.headNeeds() > limit {
				p.eof, p.err = true, errFrameTooLarge
				return
			}
			if n < room && !p.hup {
				return
			}
			continue
		}
		if errors.Is(err, sockets.ErrWouldBlock) {
			return
		}
		p.eof = true
		if err != nil {
			p.err = err
		}
		return
	}
}

// flush sends what out holds; a partial send keeps the rest, and the
// socket's EPOLLOUT edge calls flush again.
func (p *pconn) flush() error {
	if len(p.out) == 0 || p.fd == nil {
		return nil
	}
	n, err := sockets.SendNonblock(p.fd.Sysfd(), p.out)
	if n == len(p.out) {
		p.out = p.out[:0]
		return nil
	}
	if n > 0 {
		p.out = p.out[:copy(p.out, p.out[n:])]
	}
	if err == nil || errors.Is(err, sockets.ErrWouldBlock) {
		return nil
	}
	return err
}

// reset empties the buffers for another socket, keeping their memory.
func (p *pconn) reset() {
	p.fd, p.ent, p.r, p.w, p.out, p.more, p.hup, p.eof, p.err = nil, -1, 0, 0, p.out[:0], false, false, false, nil
}

// appendFrame appends a frame with payload parts a and b and sequence id
// seq to out. A payload of 16 MiB or more is split as the protocol splits
// it, with an empty last frame when its length is a multiple of 0xFFFFFF.
func appendFrame(out []byte, seq uint8, a, b []byte) ([]byte, uint8) {
	n := len(a) + len(b)
	if n < 0xFFFFFF {
		out = append(out, byte(n), byte(n>>8), byte(n>>16), seq)
		out = append(out, a...)
		return append(out, b...), seq + 1
	}
	payload := append(append([]byte(nil), a...), b...)
	for {
		chunk := min(len(payload), 0xFFFFFF)
		out = append(out, byte(chunk), byte(chunk>>8), byte(chunk>>16), seq)
		out = append(out, payload[:chunk]...)
		seq++
		payload = payload[chunk:]
		if chunk < 0xFFFFFF {
			return out, seq
		}
	}
}
