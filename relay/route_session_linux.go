package relay

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"

	"golang.org/x/sys/unix"

	"github.com/hoplat/hoplat/mysql/sqlread"
	"github.com/hoplat/hoplat/mysql/wire"
	"github.com/hoplat/hoplat/sockets"
)

// routerVersion is the server version the router's greeting announces: a
// MariaDB one (greeting bit 0 clear), since clients treat the 5.5.5- prefix
// and the bit alike, and with "MariaDB" in it, the word MariaDB's client
// library looks for before it reads the greeting's extended capabilities.
const routerVersion = "5.5.5-10.11.0-MariaDB-hoprelay"

// routerCaps are the capabilities the router's greeting offers: the mock's
// set, MariaDB style. Each is one MariaDB and the mock also offer, so a
// backend connection can negotiate what the client negotiated and their
// packets pass unchanged.
const routerCaps = wire.ServerAdvertisedCaps &^ wire.CapLongPassword

// passCaps are client flags the router does not offer but passes on to its
// backends, as mysqld honours them unoffered: FOUND_ROWS, IGNORE_SPACE,
// INTERACTIVE.
const passCaps = 0x2 | 0x100 | 0x400

// Sizes: a client's packets before login are bounded as mysqld bounds
// them; after it, one frame (a 16 MiB packet is several) is the most a
// buffer ever holds.
const (
	loginFrameLimit = 16 << 10
	frameLimit      = wire.MaxPayload + 4
	startBuffer     = 16 << 10
	// routeHighWater: the router stops reading a backend while this much
	// waits to be sent to a client that does not read, so that a large
	// result costs memory in proportion to what the client takes.
	routeHighWater = 1 << 20
)

// Commands the wire package does not name.
const (
	comStmtFetch = 0x1C
	comDebug     = 0x0D
)

// Errors the router itself answers with (MariaDB's codes). Each is a
// server's code: a client library takes an ERR packet that carries a code
// of its own range (2000-2999, CR_SERVER_LOST's 2013 among them) for a
// malformed packet (libmariadb reports 2027), so a lost backend is told
// with ER_CONNECTION_KILLED and SQLSTATE 08S01, the communication failure
// connectors treat as the end of the connection.
const (
	erConnectionKilled  = 1927 // ER_CONNECTION_KILLED: the backend went away
	stateCommFailure    = "08S01"
	erUnknownStmt       = 1243
	erPacketsOutOfOrder = 1156
)

type phase uint8

const (
	phHandshake        phase = iota // greeting sent, the handshake response awaited
	phAuthSwitch                    // auth switch sent, the client's token awaited
	phCommand                       // logged in
	phChangeUserSwitch              // COM_CHANGE_USER's auth switch sent
	phClosing                       // an ERR is on its way out: close once it is sent
)

type beState uint8

const (
	beNone       beState = iota // no socket
	beConnecting                // non-blocking connect in progress
	beGreeting                  // connected, the server's greeting awaited
	beAuth                      // handshake response sent, the outcome awaited
	beReady                     // logged in
)

// backend is one upstream connection of a session: upstream i of the pool
// in rw (0 the primary), the one the pool picked in conn.
type backend struct {
	pconn
	state    beState
	up       int    // the pool's index; -1 when none is held
	tried    uint64 // conn: upstreams tried for this connection
	replayed int    // entries of the session log it has run
	ops      []beOp // the router's own commands in flight on it, oldest first
	trk      tracker
}

type opKind uint8

const (
	opReplay  opKind = iota // a session statement replayed
	opPrepare               // a statement prepared here for the first time
	opReset                 // COM_STMT_RESET on a server the client's did not go to
)

// beOp is a command the router sent on its own; the router reads its
// response, the client never sees it.
type beOp struct {
	kind opKind
	stmt uint32 // opPrepare: the client's statement id
}

// pstmt is one of the client's prepared statements, by the id the router
// gave the client.
type pstmt struct {
	used     bool
	route    sqlread.Route
	params   uint16
	on       uint64   // upstreams it is prepared on (bit i: upstream i)
	typed    uint64   // upstreams that have its parameter types
	failedOn uint64   // upstreams that refused to prepare it
	pinned   bool     // COM_STMT_SEND_LONG_DATA went to the primary: so does the next execute
	last     int      // upstream of the last execute, which COM_STMT_FETCH follows
	ids      []uint32 // each upstream's id for it
	sql      []byte
	types    []byte // the parameter types last bound, 2 bytes each
}

// session is one client connection and the backend connections it uses,
// owned by one loop. Every method runs on the loop's thread.
type session struct {
	l      *routeLoop
	rw     bool
	cli    pconn
	be     []backend
	phase  phase
	nonce  [20]byte
	user   string
	pw     string
	db     string
	cs     uint8  // the client's collation id, which backend logins use
	caps   uint32 // negotiated with the client, plus passCaps it asked for
	ext    uint32 // MariaDB extended capabilities: offered, then negotiated
	deof   bool
	closed bool

	// The client's command in flight.
	busy    bool
	target  int
	trk     tracker
	route   sqlread.Route
	logged  bool  // it is the session log's last entry
	cliCont bool  // it continues in further frames (16 MiB split)
	respSeq uint8 // sequence id of the next packet to the client
	// cliPart: the last frame forwarded to the client was 0xFFFFFF bytes,
	// so the client reads the next frame as the rest of its packet.
	cliPart bool
	waitOn  int // upstream a command waits for (connect, login, replay, prepare); -1 none
	prepSQL []byte

	inTrx      bool
	trxBE      int
	trxLost    bool // the transaction's server went away: the next command gets an error
	autocommit bool
	rep        int // the replica this session reads from

	log       [][]byte // session statements (command byte and text), replayed on each server
	stmts     []pstmt  // by client id - 1
	freeStmts []uint32

	moved  [2]int64 // bytes forwarded per direction since the last flush
	frames [2]int64
}

func newSession(l *routeLoop, cfd *sockets.FD) *session {
	r := l.e.r
	s := &session{l: l, rw: r.cfg.Route == RouteRW, waitOn: -1, autocommit: true, trxBE: 0}
	s.cli.fd, s.cli.ent = cfd, -1
	s.cli.in = make([]byte, 4096)
	n := 1
	if s.rw {
		n = len(r.pool.ups)
		if n > 1 {
			s.rep = 1 + l.replica%(n-1)
			l.replica++
		}
	}
	s.be = make([]backend, n)
	for i := range s.be {
		s.be[i].up, s.be[i].ent = -1, -1
	}
	return s
}

// greet sends the greeting with a fresh nonce: 20 bytes in 0x21..0x7E,
// never NUL, as mysqld's.
func (s *session) greet() {
	rand.Read(s.nonce[:])
	for i := range s.nonce {
		s.nonce[i] = 0x21 + s.nonce[i]%(0x7F-0x21)
	}
	s.ext = s.l.e.offerExt()
	g := wire.Greeting{Version: []byte(routerVersion), ConnID: s.l.e.conns.Add(1), Nonce: s.nonce,
		Caps: routerCaps, ExtCaps: s.ext, Charset: wire.ClientCharsetUTF8MB4, Status: wire.ServerStatusAutocommit,
		Plugin: []byte(wire.PluginNative), MariaDB: true}
	s.cli.out = appendPacket(s.cli.out, 0, func(b []byte) []byte { return wire.AppendGreeting(b, &g) })
	s.phase = phHandshake
	s.flushAll()
}

// appendPacket appends a packet whose payload build appends, with sequence
// id seq.
func appendPacket(out []byte, seq uint8, build func([]byte) []byte) []byte {
	start := len(out)
	out = build(append(out, 0, 0, 0, 0))
	wire.PutHeader(out[start:], len(out)-start-4, seq)
	return out
}

// replyOK and replyErr answer the client from the router.
func (s *session) replyOK(seq uint8) {
	status := uint16(wire.ServerStatusAutocommit)
	if !s.autocommit {
		status = 0
	}
	s.cli.out = appendPacket(s.cli.out, seq, func(b []byte) []byte { return wire.AppendOK(b, wire.HeaderOK, 0, status) })
}

func (s *session) replyErr(seq uint8, code uint16, state, msg string) {
	s.cli.out = appendPacket(s.cli.out, seq, func(b []byte) []byte { return wire.AppendErr(b, code, state, msg) })
}

// event is an epoll event on the session's client (side -1) or backend.
func (s *session) event(side int, ev uint32) {
	hup := ev&(unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
	readable := ev&(unix.EPOLLIN|unix.EPOLLRDHUP|unix.EPOLLHUP|unix.EPOLLERR) != 0
	if side < 0 {
		if ev&unix.EPOLLOUT != 0 {
			if err := s.cli.flush(); err != nil {
				s.close()
				return
			}
		}
		if readable {
			s.cli.fill(hup, s.cliLimit())
		}
		s.drive()
		return
	}
	b := &s.be[side]
	if b.state == beConnecting {
		if ev&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) == 0 {
			return
		}
		if err := b.fd.ConnectResult(); err != nil {
			s.connectFailed(side, err)
			s.drive()
			return
		}
		s.l.e.r.pool.connected(b.up)
		b.state = beGreeting
	}
	if ev&unix.EPOLLOUT != 0 {
		if err := b.flush(); err != nil {
			b.eof, b.err = true, err
		}
	}
	if readable {
		b.fill(hup, frameLimit)
	}
	s.drive()
}

func (s *session) cliLimit() int {
	if s.phase == phCommand {
		return frameLimit
	}
	return loginFrameLimit
}

// drive moves the session on as far as what is buffered allows, then
// sends what it queued. Where the client's queue held the backends back
// (routeHighWater) and the send took enough of it, it moves on again: the
// frames a backend has buffered, and the end of its stream, were told by
// an edge that has come and gone, and no event would say them again.
func (s *session) drive() {
	for !s.closed {
		s.step()
		if s.closed {
			return
		}
		held := len(s.cli.out) >= routeHighWater
		s.flushAll()
		if !held || s.closed || len(s.cli.out) >= routeHighWater {
			return // a partial send waits for the client's EPOLLOUT edge
		}
	}
}

// step moves the session on as far as what is buffered allows.
func (s *session) step() {
	for !s.closed {
		moved := false
		for i := range s.be {
			if s.backendStep(i) {
				moved = true
			}
			if s.closed {
				return
			}
		}
		if s.clientStep() {
			moved = true
		}
		if !moved {
			return
		}
	}
}

func (s *session) flushAll() {
	if s.closed {
		return
	}
	for i := range s.be {
		b := &s.be[i]
		if b.state > beConnecting && len(b.out) > 0 {
			if err := b.flush(); err != nil {
				s.lost(i, err, nil)
				if s.closed {
					return
				}
			}
		}
	}
	if err := s.cli.flush(); err != nil {
		s.close()
		return
	}
	r := s.l.e.r
	for d := range 2 {
		if s.frames[d] > 0 {
			r.counters.bytes[d].Add(s.moved[d])
			r.counters.chunks[d].Add(s.frames[d])
			s.moved[d], s.frames[d] = 0, 0
			if d == UpstreamToClient && s.l.rec != nil {
				s.l.rec.record(nanotime() - s.l.now)
			}
		}
	}
	if s.phase == phClosing && len(s.cli.out) == 0 {
		s.close()
	}
}

// close ends the session: every socket closed (which takes it out of the
// epoll set), the upstreams given back to the pool.
func (s *session) close() {
	if s.closed {
		return
	}
	s.closed = true
	for i := range s.be {
		s.dropBackend(i)
	}
	s.l.unregister(s.cli.ent)
	s.cli.fd.Close()
	s.l.sessionEnded()
}

// dropBackend closes backend i's socket, if any, and forgets what it held:
// its statements, its place in the session log, its ops.
func (s *session) dropBackend(i int) {
	b := &s.be[i]
	if b.fd != nil {
		s.l.unregister(b.ent)
		b.fd.Close()
	}
	if b.up >= 0 {
		s.l.e.r.pool.done(b.up)
	}
	tried := b.tried
	b.pconn.reset()
	b.state, b.up, b.replayed, b.ops, b.tried = beNone, -1, 0, b.ops[:0], tried
	bit := uint64(1) << i
	for k := range s.stmts {
		s.stmts[k].on &^= bit
		s.stmts[k].typed &^= bit
	}
}

// open starts backend i's connect: upstream i in rw, in conn the next one
// the pool picks that this connection has not tried.
func (s *session) open(i int) {
	r := s.l.e.r
	b := &s.be[i]
	for {
		up := i
		if !s.rw {
			if up = r.pool.pick(b.tried); up < 0 {
				b.tried = 0
				s.lost(i, fmt.Errorf("every upstream refused"), nil)
				return
			}
		} else {
			r.pool.ups[up].live.Add(1)
		}
		b.tried |= 1 << up
		fd, err := s.l.dials[up].Dial()
		if err != nil {
			r.pool.failed(up, err)
			r.cfg.Logf("relay: route: upstream %s: %v", r.pool.addr(up).NetAddr(), err)
			if !s.rw {
				continue
			}
			s.lost(i, err, nil)
			return
		}
		b.pconn.reset()
		b.fd, b.up = fd, up
		if b.in == nil {
			b.in = make([]byte, startBuffer)
		}
		id, err := s.l.register(fd, s, i)
		if err != nil {
			s.lost(i, err, nil)
			return
		}
		b.ent, b.state = id, beConnecting
		return
	}
}

// connectFailed is a refused or failed connect: in conn the next upstream
// is tried, in rw the command waiting for it fails (or, for a replica,
// falls back to the primary).
func (s *session) connectFailed(i int, err error) {
	r := s.l.e.r
	b := &s.be[i]
	r.pool.failed(b.up, err)
	r.cfg.Logf("relay: route: upstream %s: %v", r.pool.addr(b.up).NetAddr(), err)
	b.up = -1
	if !s.rw {
		s.dropBackend(i)
		s.open(i)
		return
	}
	s.lost(i, err, nil)
}

// lost handles backend i going away (or never coming): a response the
// client waits for ends in an ERR and the session closes; a command
// waiting for the backend gets an ERR (a read waiting for a replica goes
// to another server instead); a transaction on it fails at the client's
// next command; otherwise the backend is opened again when next needed.
// errPkt is the backend's own ERR payload (a refused login), else nil.
func (s *session) lost(i int, err error, errPkt []byte) {
	r := s.l.e.r
	b := &s.be[i]
	wasReady := b.state == beReady
	if s.rw && i > 0 {
		r.pool.markDown(i, err)
	}
	if b.state == beReady || b.state == beAuth || b.state == beGreeting {
		r.cfg.Logf("relay: route: upstream %s: %v", r.pool.addr(max(b.up, 0)).NetAddr(), err)
	}
	s.dropBackend(i)
	switch {
	case s.busy && s.target == i:
		s.busy = false
		s.failClient(s.respSeq, i, err, errPkt)
		s.phase = phClosing
	case s.waitOn == i:
		s.waitOn = -1
		if s.rw && i > 0 && !(s.inTrx && s.trxBE == i) {
			return // the command is routed again, away from the replica
		}
		f := s.cli.frame()
		if f == nil {
			return
		}
		seq := f[3] + 1
		s.cli.next(f)
		s.failClient(seq, i, err, errPkt)
		if s.inTrx && s.trxBE == i {
			s.inTrx = false
			s.phase = phClosing
		}
	case s.inTrx && s.trxBE == i:
		s.trxLost = true
	case !s.rw && wasReady:
		s.failClient(s.respSeq, i, err, errPkt)
		s.phase = phClosing
	}
}

// failClient answers the client's command with an ERR of sequence id seq:
// the backend's own (errPkt), else the router's, which names backend i and
// err. Amid a packet of 16 MiB or more (cliPart) no ERR can follow, as the
// client would read it as the packet's rest: the session only closes then,
// and the client reports the lost connection itself.
func (s *session) failClient(seq uint8, i int, err error, errPkt []byte) {
	if s.cliPart {
		return
	}
	if errPkt != nil {
		s.cli.out = appendPacket(s.cli.out, seq, func(b []byte) []byte { return append(b, errPkt...) })
		return
	}
	s.replyErr(seq, erConnectionKilled, stateCommFailure, fmt.Sprintf("Lost connection to backend server %s (%v)", s.l.e.r.pool.addr(i).NetAddr(), err))
}

// backendStep reads what backend i has buffered: its login, the responses
// to the router's own commands, then the response the client waits for.
func (s *session) backendStep(i int) bool {
	b := &s.be[i]
	switch b.state {
	case beGreeting, beAuth:
		return s.loginStep(i)
	case beReady:
	default:
		return false
	}
	moved := false
	for !s.closed && b.state == beReady {
		f, gone := s.backendFrame(i)
		if gone {
			return true
		}
		if f == nil {
			return moved
		}
		switch {
		case len(b.ops) > 0:
			done := b.trk.feed(f)
			b.next(f)
			if done {
				s.opDone(i)
			}
		case !s.rw:
			if len(s.cli.out) >= routeHighWater {
				return moved
			}
			s.cli.out = append(s.cli.out, f...)
			s.respSeq, s.cliPart = f[3]+1, len(f)-4 == wire.MaxPayload
			s.moved[UpstreamToClient] += int64(len(f))
			s.frames[UpstreamToClient]++
			b.next(f)
		case s.busy && s.target == i:
			if len(s.cli.out) >= routeHighWater {
				return moved
			}
			s.forward(i, f)
		default:
			// Unsolicited: the ERR a server sends before it closes an
			// idle connection. Its close follows.
			b.next(f)
		}
		moved = true
	}
	return true
}

// backendFrame is backend i's next whole frame, nil when none is buffered;
// gone says backend i has gone away, which lost has handled.
func (s *session) backendFrame(i int) (f []byte, gone bool) {
	b := &s.be[i]
	if f = b.nextFrame(frameLimit); f == nil && b.eof {
		s.lost(i, eofErr(b.err), nil)
		return nil, true
	}
	return f, false
}

func eofErr(err error) error {
	if err != nil {
		return err
	}
	return io.EOF
}

// forward passes frame f of the response the client waits for, rewriting a
// prepare-OK's statement id to the client's.
func (s *session) forward(i int, f []byte) {
	b := &s.be[i]
	first := s.trk.first
	done := s.trk.feed(f)
	start := len(s.cli.out)
	s.cli.out = append(s.cli.out, f...)
	if first && s.trk.kind == respPrepare && !s.trk.err && len(f) >= 13 && f[4] == wire.HeaderOK {
		id := s.newStmt(i, s.trk.stmt, s.trk.params)
		binary.LittleEndian.PutUint32(s.cli.out[start+5:], id)
	}
	s.respSeq, s.cliPart = f[3]+1, len(f)-4 == wire.MaxPayload
	s.moved[UpstreamToClient] += int64(len(f))
	s.frames[UpstreamToClient]++
	b.next(f)
	if done {
		s.finish()
	}
}

// finish ends the exchange in flight, learning from it whether a
// transaction is open and autocommit on.
func (s *session) finish() {
	s.busy = false
	t := &s.trk
	if s.logged && t.err {
		// A session statement that failed is not replayed.
		s.log = s.log[:len(s.log)-1]
		for k := range s.be {
			s.be[k].replayed = min(s.be[k].replayed, len(s.log))
		}
	}
	s.logged = false
	if !t.err {
		switch s.route {
		case sqlread.RouteBegin, sqlread.RouteBeginReadOnly:
			s.beginTrx()
		case sqlread.RouteEnd:
			s.inTrx = false
		}
	}
	if t.gotStatus {
		s.autocommit = t.status&wire.ServerStatusAutocommit != 0
		if t.status&wire.ServerStatusInTrans != 0 {
			s.beginTrx()
		}
	}
}

func (s *session) beginTrx() {
	if !s.inTrx {
		s.l.e.r.route.transactions.Add(1)
		s.inTrx, s.trxBE = true, s.target
	}
}

// opDone handles the response to the router's own command at the head of
// backend i's ops.
func (s *session) opDone(i int) {
	b := &s.be[i]
	op := b.ops[0]
	t := &b.trk
	if op.kind == opPrepare {
		bit := uint64(1) << i
		ps := s.stmtAt(op.stmt)
		switch {
		case ps != nil && !t.err:
			ps.ids[i], ps.on, ps.typed = t.stmt, ps.on|bit, ps.typed&^bit
		case ps != nil:
			ps.failedOn |= bit
		case !t.err:
			// Closed by the client meanwhile.
			b.out = appendStmtCmd(b.out, wire.ComStmtClose, t.stmt)
		}
	}
	b.ops = b.ops[:copy(b.ops, b.ops[1:])]
	if len(b.ops) > 0 {
		s.startOp(i)
	}
}

func (s *session) startOp(i int) {
	b := &s.be[i]
	kind := respResult
	if b.ops[0].kind == opPrepare {
		kind = respPrepare
	}
	b.trk.start(kind, s.deof, s.ext&wire.ExtCapCacheMetadata != 0)
}

func (s *session) pushOp(i int, op beOp) {
	b := &s.be[i]
	b.ops = append(b.ops, op)
	if len(b.ops) == 1 {
		s.startOp(i)
	}
}

// appendStmtCmd appends a command that carries only a statement id.
func appendStmtCmd(out []byte, cmd byte, id uint32) []byte {
	return append(out, 5, 0, 0, 0, cmd, byte(id), byte(id>>8), byte(id>>16), byte(id>>24))
}

// ready reports whether backend i can take a command now, starting what
// it lacks: the connect and login, the session statements it has not run.
func (s *session) ready(i int) bool {
	b := &s.be[i]
	switch b.state {
	case beNone:
		s.open(i)
		return false
	case beReady:
	default:
		return false
	}
	if b.replayed < len(s.log) {
		r := s.l.e.r
		for _, p := range s.log[b.replayed:] {
			b.out, _ = appendFrame(b.out, 0, p, nil)
			s.pushOp(i, beOp{kind: opReplay})
			r.route.replays.Add(1)
		}
		b.replayed = len(s.log)
	}
	return len(b.ops) == 0
}

// clientStep reads the client's next packet: its login, or a command.
func (s *session) clientStep() bool {
	f := s.cli.nextFrame(s.cliLimit())
	if f == nil {
		if s.cli.eof && len(s.cli.out) == 0 || s.cli.err != nil {
			s.close()
		}
		return false
	}
	switch s.phase {
	case phHandshake:
		s.cli.next(f)
		s.handshake(f)
		return true
	case phAuthSwitch, phChangeUserSwitch:
		s.cli.next(f)
		if f[3] != s.respSeq {
			s.close()
			return true
		}
		s.checkAuth(f[4:], f[3]+1)
		return true
	case phClosing:
		s.cli.next(f)
		return true
	}
	if s.busy {
		if !s.cliCont && !s.trk.infile {
			return false // a pipelined command waits for the response in flight
		}
		// The rest of a split command, or LOCAL INFILE data, goes where
		// the command went.
		s.cliCont = s.cliCont && len(f)-4 == wire.MaxPayload
		if s.trk.infile && len(f) == 4 {
			s.trk.infile = false
		}
		s.toBackend(s.target, f)
		return true
	}
	if !s.rw {
		return s.connCommand(f)
	}
	return s.command(f)
}

// toBackend queues the client's frame f to backend i as it is.
func (s *session) toBackend(i int, f []byte) {
	b := &s.be[i]
	b.out = append(b.out, f...)
	s.moved[ClientToUpstream] += int64(len(f))
	s.frames[ClientToUpstream]++
	s.respSeq = f[3] + 1
	s.cli.next(f)
}

// routerCommand handles command f (cmd, its first payload byte) where it
// is the router's own in both modes: COM_QUIT ends the session, and
// COM_CHANGE_USER logs in again, since the login is the router's. It
// reports whether it did.
func (s *session) routerCommand(cmd byte, f []byte) bool {
	switch cmd {
	case wire.ComQuit:
		s.close()
	case wire.ComChangeUser:
		s.changeUser(f)
	default:
		return false
	}
	return true
}

// connCommand forwards a command to the connection's one backend; only
// COM_QUIT and COM_CHANGE_USER (the login is the router's) stop here.
func (s *session) connCommand(f []byte) bool {
	if f[3] == 0 && len(f) > 4 {
		if s.routerCommand(f[4], f) {
			return true
		}
		if c := f[4]; (c == wire.ComQuery || c == wire.ComStmtExecute) && s.be[0].state == beReady {
			r := s.l.e.r
			r.route.statements.Add(1)
			r.route.toPrimary.Add(1)
		}
	}
	s.waitOn = 0
	if !s.ready(0) {
		return s.waitOn != 0
	}
	s.waitOn = -1
	s.toBackend(0, f)
	return true
}

// command routes one command of an rw session.
func (s *session) command(f []byte) bool {
	p := f[4:]
	if f[3] != 0 || len(p) == 0 {
		s.cli.next(f)
		s.replyErr(f[3]+1, erPacketsOutOfOrder, "08S01", "Got packets out of order")
		s.phase = phClosing
		return true
	}
	if s.trxLost {
		s.cli.next(f)
		s.replyErr(1, erConnectionKilled, stateCommFailure, "Lost connection to backend server during transaction")
		s.phase = phClosing
		return true
	}
	if s.routerCommand(p[0], f) {
		return true
	}
	switch p[0] {
	case wire.ComResetConnection:
		s.cli.next(f)
		s.resetSession()
		s.replyOK(1)
		return true
	case wire.ComQuery:
		st := sqlread.Classify(p[1:])
		return s.send(f, s.pick(st.Route), respResult, st.Route, st.Route == sqlread.RouteSession)
	case wire.ComInitDB:
		return s.send(f, s.home(), respResult, sqlread.RouteSession, true)
	case wire.ComStmtPrepare:
		return s.send(f, s.home(), respPrepare, sqlread.RouteWrite, false)
	case wire.ComStmtExecute:
		return s.execute(f)
	case wire.ComStmtClose:
		s.stmtClose(p)
		s.cli.next(f)
		return true
	case wire.ComStmtReset, wire.ComStmtSendLongData, comStmtFetch:
		return s.stmtCommand(f)
	case wire.ComStatistics, wire.ComSetOption, comDebug:
		return s.send(f, s.home(), respOne, sqlread.RouteWrite, false)
	case wire.ComFieldList:
		return s.send(f, s.home(), respRows, sqlread.RouteWrite, false)
	}
	return s.send(f, s.home(), respResult, sqlread.RouteWrite, false)
}

// home is where a command with no route of its own goes: the
// transaction's server, else the primary.
func (s *session) home() int {
	if s.inTrx {
		return s.trxBE
	}
	return 0
}

// pick is where a statement with route r goes.
func (s *session) pick(r sqlread.Route) int {
	if s.inTrx {
		return s.trxBE
	}
	if s.autocommit && (r == sqlread.RouteRead || r == sqlread.RouteBeginReadOnly) {
		return s.replica()
	}
	return 0
}

// replica is the replica this session reads from, another when that one
// is down, the primary when all are (or there are none).
func (s *session) replica() int {
	n := len(s.be)
	if n == 1 {
		return 0
	}
	now := nanotime()
	for k := range n - 1 {
		i := 1 + (s.rep-1+k)%(n-1)
		if s.be[i].state == beReady || !s.l.e.r.pool.down(i, now) {
			return i
		}
	}
	return 0
}

// send forwards command f to backend i once it is ready, as the exchange
// now in flight.
func (s *session) send(f []byte, i int, kind respKind, route sqlread.Route, logged bool) bool {
	s.waitOn = i
	if !s.ready(i) {
		return s.waitOn != i // a failure answered or rerouted it
	}
	s.waitOn = -1
	if logged {
		s.appendLog(f[4:])
		s.be[i].replayed = len(s.log)
		s.logged = true
	}
	if kind == respPrepare {
		s.prepSQL = append(s.prepSQL[:0], f[5:]...)
	}
	s.begin(i, kind, route, f)
	s.toBackend(i, f)
	return true
}

// appendLog adds session statement p to the log. A statement already in it
// moves to the end instead, so that a session that sets the same thing
// again and again (an ORM's SET autocommit around each transaction) keeps
// a log as long as the distinct statements it ran: the last of equal SETs
// decides, which holds for SETs of constants (MaxScale prunes its history
// alike). A backend that ran the old copy runs the new one when next used.
func (s *session) appendLog(p []byte) {
	for j, e := range s.log {
		if bytes.Equal(e, p) {
			copy(s.log[j:], s.log[j+1:])
			s.log[len(s.log)-1] = e
			for k := range s.be {
				if s.be[k].replayed > j {
					s.be[k].replayed--
				}
			}
			return
		}
	}
	s.log = append(s.log, bytes.Clone(p))
}

// begin starts the exchange of command f on backend i.
func (s *session) begin(i int, kind respKind, route sqlread.Route, f []byte) {
	s.busy, s.target, s.route = true, i, route
	s.trk.start(kind, s.deof, s.ext&wire.ExtCapCacheMetadata != 0)
	s.cliCont = len(f)-4 == wire.MaxPayload
	r := s.l.e.r
	switch f[4] {
	case wire.ComQuery, wire.ComStmtExecute:
		r.route.statements.Add(1)
		if i == 0 {
			r.route.toPrimary.Add(1)
		} else {
			r.route.toReplicas.Add(1)
		}
	case wire.ComStmtPrepare:
		r.route.prepares.Add(1)
	}
}

// execute routes COM_STMT_EXECUTE by its statement's route, preparing it
// first on a server that has not seen it, with the id mapped and the
// parameter types sent again to a server that has not had them.
func (s *session) execute(f []byte) bool {
	p := f[4:]
	if len(p) < 5 {
		s.cli.next(f)
		s.replyErr(1, wire.ErWrongArguments, "HY000", "Incorrect arguments to mysqld_stmt_execute")
		return true
	}
	id := binary.LittleEndian.Uint32(p[1:])
	ps := s.stmtAt(id)
	if ps == nil {
		s.cli.next(f)
		s.replyErr(1, erUnknownStmt, "HY000", fmt.Sprintf("Unknown prepared statement handler (%d) given to mysqld_stmt_execute", id))
		return true
	}
	route := ps.route
	if ps.pinned {
		route = sqlread.RouteWrite
	}
	i := s.pick(route)
	if ps.failedOn&(1<<i) != 0 && i != 0 {
		i = 0
	}
	on, done := s.stmtOn(i, id, ps, f, func() bool {
		if ps.failedOn&(1<<i) == 0 {
			return false
		}
		s.replyErr(1, erUnknownStmt, "HY000", fmt.Sprintf("Unknown prepared statement handler (%d) given to mysqld_stmt_execute", id))
		return true
	})
	if !on {
		return done
	}
	b := &s.be[i]
	start := len(b.out)
	b.out = ps.appendExecute(b.out, f, i)
	s.stmtSent(i, ps, start)
	ps.last, ps.pinned = i, false
	s.begin(i, respResult, route, f)
	s.respSeq = 1
	s.cli.next(f)
	return true
}

// appendExecute appends the execute f with, for upstream i that has not
// had them, the parameter types the client bound earlier: a client sends
// them only when they change (new-params-bound 1), and the execute may go
// to a server that never saw them.
func (ps *pstmt) appendExecute(out []byte, f []byte, i int) []byte {
	p := f[4:]
	if ps.params == 0 || len(p) >= wire.MaxPayload {
		return append(out, f...)
	}
	off := 10 + (int(ps.params)+7)/8 // new-params-bound, after id, flags, iterations, NULL bitmap
	if len(p) <= off {
		return append(out, f...)
	}
	bit := uint64(1) << i
	if p[off] == 1 {
		if tl := 2 * int(ps.params); len(p) >= off+1+tl {
			if t := p[off+1 : off+1+tl]; !bytes.Equal(ps.types, t) {
				ps.types, ps.typed = append(ps.types[:0], t...), 0
			}
			ps.typed |= bit
		}
		return append(out, f...)
	}
	if ps.typed&bit != 0 || len(ps.types) == 0 {
		return append(out, f...)
	}
	ps.typed |= bit
	n := len(p) + len(ps.types)
	out = append(out, byte(n), byte(n>>8), byte(n>>16), f[3])
	out = append(out, p[:off]...)
	out = append(out, 1)
	out = append(out, ps.types...)
	return append(out, p[off+1:]...)
}

// stmtOn readies backend i for command f on statement ps (the client's
// id): the command waits for the backend (ready), and where ps is not on
// it yet, for ps's prepare there (prepareOn), unless answer answers the
// command instead (returning true; f is then consumed). on: ps is on a
// ready backend i, and the command is to be sent. Otherwise done is what
// the command's handler returns: whether f was answered or rerouted.
// answer is called only on the way to a prepare, so that the hot path
// (ps already on i) pays only for the check.
func (s *session) stmtOn(i int, id uint32, ps *pstmt, f []byte, answer func() bool) (on, done bool) {
	s.waitOn = i
	if !s.ready(i) {
		return false, s.waitOn != i
	}
	if ps.on&(1<<i) == 0 {
		if answer() {
			s.waitOn = -1
			s.cli.next(f)
			return false, true
		}
		s.prepareOn(i, id, ps)
		return false, false
	}
	s.waitOn = -1
	return true, false
}

// stmtSent finishes a statement command appended to backend i's out at
// start: the statement id in it becomes the backend's own, and the frame
// counts as moved to the upstream.
func (s *session) stmtSent(i int, ps *pstmt, start int) {
	b := &s.be[i]
	binary.LittleEndian.PutUint32(b.out[start+5:], ps.ids[i])
	s.moved[ClientToUpstream] += int64(len(b.out) - start)
	s.frames[ClientToUpstream]++
}

// prepareOn prepares statement id on backend i for an execute that waits.
func (s *session) prepareOn(i int, id uint32, ps *pstmt) {
	b := &s.be[i]
	b.out, _ = appendFrame(b.out, 0, []byte{wire.ComStmtPrepare}, ps.sql)
	s.pushOp(i, beOp{kind: opPrepare, stmt: id})
	s.l.e.r.route.prepares.Add(1)
}

// newStmt records a statement the client's prepare created on backend i
// with id there, and returns the id the client gets.
func (s *session) newStmt(i int, beID uint32, params uint16) uint32 {
	var id uint32
	if n := len(s.freeStmts); n > 0 {
		id = s.freeStmts[n-1]
		s.freeStmts = s.freeStmts[:n-1]
	} else {
		s.stmts = append(s.stmts, pstmt{})
		id = uint32(len(s.stmts))
	}
	ps := &s.stmts[id-1]
	if len(ps.ids) < len(s.be) {
		ps.ids = make([]uint32, len(s.be))
	}
	ps.used, ps.params, ps.on, ps.typed, ps.failedOn, ps.pinned, ps.last = true, params, 1<<i, 0, 0, false, i
	ps.ids[i] = beID
	ps.sql = append(ps.sql[:0], s.prepSQL...)
	ps.types = ps.types[:0]
	ps.route = sqlread.Classify(ps.sql).Route
	return id
}

func (s *session) stmtAt(id uint32) *pstmt {
	if id == 0 || int(id) > len(s.stmts) || !s.stmts[id-1].used {
		return nil
	}
	return &s.stmts[id-1]
}

// stmtClose closes the statement on every server it was prepared on; the
// command has no response.
func (s *session) stmtClose(p []byte) {
	if len(p) < 5 {
		return
	}
	id := binary.LittleEndian.Uint32(p[1:])
	ps := s.stmtAt(id)
	if ps == nil {
		return
	}
	for i := range s.be {
		if ps.on&(1<<i) != 0 && s.be[i].state == beReady {
			s.be[i].out = appendStmtCmd(s.be[i].out, wire.ComStmtClose, ps.ids[i])
		}
	}
	ps.used, ps.on = false, 0
	s.freeStmts = append(s.freeStmts, id)
}

// stmtCommand routes COM_STMT_RESET (to every server the statement is on,
// the client answered by one), COM_STMT_SEND_LONG_DATA (to the primary,
// where the next execute then goes) and COM_STMT_FETCH (where the last
// execute went).
func (s *session) stmtCommand(f []byte) bool {
	p := f[4:]
	var id uint32
	if len(p) >= 5 {
		id = binary.LittleEndian.Uint32(p[1:])
	}
	ps := s.stmtAt(id)
	cmd := p[0]
	if ps == nil {
		s.cli.next(f)
		if cmd != wire.ComStmtSendLongData {
			s.replyErr(1, erUnknownStmt, "HY000", fmt.Sprintf("Unknown prepared statement handler (%d) given to mysqld_stmt_reset", id))
		}
		return true
	}
	i, kind := 0, respResult
	switch cmd {
	case wire.ComStmtReset:
		if ps.on&(1<<ps.last) != 0 {
			i = ps.last
		}
	case comStmtFetch:
		i, kind = ps.last, respRows
	}
	on, done := s.stmtOn(i, id, ps, f, func() bool {
		if cmd != wire.ComStmtReset {
			return false
		}
		s.replyOK(1) // nothing to reset where it was never prepared
		return true
	})
	if !on {
		return done
	}
	b := &s.be[i]
	start := len(b.out)
	b.out = append(b.out, f...)
	s.stmtSent(i, ps, start)
	switch cmd {
	case wire.ComStmtSendLongData:
		ps.pinned = true
		s.cli.next(f)
		return true
	case wire.ComStmtReset:
		for k := range s.be {
			if k != i && ps.on&(1<<k) != 0 && s.be[k].state == beReady {
				s.be[k].out = appendStmtCmd(s.be[k].out, wire.ComStmtReset, ps.ids[k])
				s.pushOp(k, beOp{kind: opReset})
			}
		}
		ps.pinned = false
	}
	s.begin(i, kind, sqlread.RouteWrite, f)
	s.respSeq = f[3] + 1
	s.cli.next(f)
	return true
}

// resetSession forgets the session's state, as COM_RESET_CONNECTION and a
// COM_CHANGE_USER do on a server: the backends are closed (and opened again
// when next needed, with a clean session), the log and statements dropped.
func (s *session) resetSession() {
	for i := range s.be {
		s.dropBackend(i)
		s.be[i].tried = 0
	}
	s.log = s.log[:0]
	s.freeStmts = s.freeStmts[:0]
	for k := range s.stmts {
		s.stmts[k].used = false
		s.freeStmts = append(s.freeStmts, uint32(len(s.stmts)-k))
	}
	s.inTrx, s.trxLost, s.autocommit, s.busy, s.waitOn = false, false, true, false, -1
}

// handshake reads the client's HandshakeResponse41 and authenticates it,
// switching it to mysql_native_password first if it answered for another
// plugin.
func (s *session) handshake(f []byte) {
	if f[3] != 1 {
		s.close()
		return
	}
	resp, err := wire.ParseHandshakeResponse(f[4:])
	if err != nil {
		s.replyErr(2, wire.ErHandshake, "08S01", "Bad handshake")
		s.phase = phClosing
		return
	}
	s.caps = resp.Caps&routerCaps | resp.Caps&passCaps
	s.deof = s.caps&wire.CapDeprecateEOF != 0
	s.ext &= resp.ExtCaps
	s.user, s.db, s.cs = string(resp.User), string(resp.Db), resp.Charset
	if s.caps&wire.CapPluginAuth != 0 && len(resp.Plugin) > 0 && string(resp.Plugin) != wire.PluginNative {
		s.cli.out = appendPacket(s.cli.out, 2, func(b []byte) []byte { return wire.AppendAuthSwitch(b, wire.PluginNative, s.nonce[:]) })
		s.phase, s.respSeq = phAuthSwitch, 3
		return
	}
	s.checkAuth(resp.Auth, 2)
}

// checkAuth ends a login or COM_CHANGE_USER: OK and the primary's (conn:
// the picked upstream's) connect started, or MariaDB's ERR 1045 and the
// connection closed.
func (s *session) checkAuth(token []byte, seq uint8) {
	pw, ok := s.l.e.r.cfg.Users[s.user]
	if !ok || !wire.CheckToken(wire.PluginNative, s.nonce[:], pw, token) {
		using := "NO"
		if len(token) > 0 {
			using = "YES"
		}
		s.replyErr(seq, wire.ErAccessDenied, "28000", fmt.Sprintf("Access denied for user '%s'@'%s' (using password: %s)", s.user, s.peerHost(), using))
		s.phase = phClosing
		return
	}
	s.pw = pw
	s.replyOK(seq)
	s.phase = phCommand
	s.ready(0)
}

// peerHost names the client in Access denied messages as MariaDB does with
// name resolution on: localhost for a UNIX socket or a loopback address.
func (s *session) peerHost() string {
	sa, err := unix.Getpeername(s.cli.fd.Sysfd())
	if err != nil {
		return "localhost"
	}
	var ip net.IP
	switch v := sa.(type) {
	case *unix.SockaddrInet4:
		ip = net.IP(v.Addr[:])
	case *unix.SockaddrInet6:
		ip = net.IP(v.Addr[:])
	default:
		return "localhost"
	}
	if ip.IsLoopback() {
		return "localhost"
	}
	return ip.String()
}

// changeUser authenticates COM_CHANGE_USER against the router's accounts
// with the greeting's nonce (as MariaDB does) and, on success, starts the
// session afresh: backends log in again as the new user.
func (s *session) changeUser(f []byte) {
	s.cli.next(f)
	d := wire.Decoder{B: f[5:], What: "change user"}
	user := d.NulBytes("user", false)
	var token []byte
	if s.caps&wire.CapSecureConnection != 0 {
		token = d.Bytes(int(d.U8("auth response length")), "auth response")
	} else {
		token = d.NulBytes("auth response", false)
	}
	db := d.NulBytes("schema", true)
	var plugin []byte
	if d.Err == nil && d.Remaining() >= 2 {
		if cs := d.U16("character set"); cs != 0 && cs < 256 {
			s.cs = uint8(cs)
		}
		if d.Remaining() > 0 {
			plugin = d.NulBytes("plugin", true)
		}
	}
	if d.Err != nil {
		s.replyErr(1, wire.ErHandshake, "08S01", "Bad handshake")
		s.phase = phClosing
		return
	}
	s.resetSession()
	s.user, s.db = string(user), string(db)
	if len(plugin) > 0 && string(plugin) != wire.PluginNative {
		s.cli.out = appendPacket(s.cli.out, 1, func(b []byte) []byte { return wire.AppendAuthSwitch(b, wire.PluginNative, s.nonce[:]) })
		s.phase, s.respSeq = phChangeUserSwitch, 2
		return
	}
	s.phase = phChangeUserSwitch
	s.checkAuth(token, 1)
}

// loginStep logs backend i in as the session's user: greeting, handshake
// response, an auth switch if the server asks, OK.
func (s *session) loginStep(i int) bool {
	b := &s.be[i]
	f, gone := s.backendFrame(i)
	if f == nil {
		return gone
	}
	p, seq := f[4:], f[3]
	b.next(f)
	if len(p) == 0 {
		s.lost(i, errors.New("empty packet during login"), nil)
		return true
	}
	if p[0] == wire.HeaderErr {
		s.lost(i, wire.ParseErr(p), bytes.Clone(p))
		return true
	}
	if b.state == beGreeting {
		g, err := wire.ParseGreeting(p)
		if err != nil {
			s.lost(i, err, nil)
			return true
		}
		want := s.caps&^(wire.CapSSL|wire.CapConnectAttrs|wire.CapConnectWithDB|0x20) |
			wire.CapProtocol41 | wire.CapSecureConnection | wire.CapPluginAuth | wire.CapLongFlag
		if s.db != "" {
			want |= wire.CapConnectWithDB
		}
		caps := want & g.Caps
		if (caps^s.caps)&wire.CapDeprecateEOF != 0 {
			s.lost(i, fmt.Errorf("upstream capabilities 0x%08x lack the client's CLIENT_DEPRECATE_EOF", g.Caps), nil)
			return true
		}
		// The client's packets pass unchanged only where the backend
		// speaks the formats the client negotiated with the router.
		s.l.e.sawExt(b.up, g.ExtCaps)
		if s.ext&^g.ExtCaps != 0 {
			s.lost(i, fmt.Errorf("upstream's MariaDB extended capabilities 0x%x lack the client's 0x%x", g.ExtCaps, s.ext), nil)
			return true
		}
		resp := wire.HandshakeResponse{Caps: caps, ExtCaps: s.ext, MaxPacket: wire.MaxPayload + 1, Charset: s.cs,
			User: []byte(s.user), Auth: wire.NativeToken(nil, g.Nonce[:], s.pw), Db: []byte(s.db), Plugin: []byte(wire.PluginNative)}
		if s.pw == "" {
			resp.Auth = nil
		}
		b.out = appendPacket(b.out, seq+1, func(x []byte) []byte { return wire.AppendHandshakeResponse(x, &resp) })
		b.state = beAuth
		return true
	}
	switch p[0] {
	case wire.HeaderOK:
		b.state, b.tried = beReady, 0
	case wire.HeaderEOF:
		sw, err := wire.ParseAuthSwitch(p)
		if err != nil {
			s.lost(i, err, nil)
			return true
		}
		nonce := sw.Data
		if len(nonce) > 20 {
			nonce = nonce[:20]
		}
		token, err := wire.AuthToken(nil, string(sw.Plugin), nonce, s.pw)
		if err != nil {
			s.lost(i, err, nil)
			return true
		}
		b.out, _ = appendFrame(b.out, seq+1, token, nil)
	case wire.HeaderAuthMore:
		if len(p) < 2 || p[1] != 3 {
			s.lost(i, errors.New("caching_sha2_password full authentication, which the router does not do"), nil)
		}
		// 01 03: fast authentication succeeded; the OK follows.
	default:
		s.lost(i, fmt.Errorf("unexpected packet 0x%02x during login", p[0]), nil)
	}
	return true
}
