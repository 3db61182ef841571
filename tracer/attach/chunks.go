package attach

import (
	"slices"
	"sort"
	"time"

	"github.com/hoplat/hoplat/tracer"
)

// Direction is the way bytes cross the proxy.
type Direction int

const (
	// ToUpstream: from a socket the proxy accepted to one it connected.
	ToUpstream Direction = iota
	// ToClient: the reverse.
	ToClient
)

func (d Direction) String() string {
	if d == ToUpstream {
		return "to_upstream"
	}
	return "to_client"
}

// Split is where a chunk's residence went, from the view of the proxy
// thread that sent its last byte; its parts sum to the residence.
type Split struct {
	Blocked  time.Duration // not runnable: waiting for a wake-up, a timer, a lock
	Runnable time.Duration // woken or preempted, waiting for a CPU
	OnCPU    time.Duration // running its own code and the kernel's for it
	Softirq  time.Duration // softirqs that interrupted it
}

// Sum is the parts' total.
func (s Split) Sum() time.Duration { return s.Blocked + s.Runnable + s.OnCPU + s.Softirq }

// Chunk is one arrival on an inbound socket (the kernel queueing data:
// sk_data_ready) matched by byte offsets to the send of its last byte on
// the outbound socket.
type Chunk struct {
	Direction     Direction
	Arrival, Sent uint64 // CLOCK_MONOTONIC, ns
	Bytes         int
	Tid           int    // the proxy thread that sent it
	Pid           int    // its process (tgid)
	Inbound       uint64 // the inbound socket (its kernel address, an identity)
	Split         Split
}

// Residence is how long the chunk stayed in the proxy.
func (c Chunk) Residence() time.Duration { return time.Duration(c.Sent - c.Arrival) }

// Window is what Analyze found in one window's events besides chunks.
type Window struct {
	Forks   []int // processes forked by followed ones (tgids)
	Threads []int // the proxy threads that moved bytes (tids)
}

// Bounds that keep a proxy whose bytes cannot be matched (one that
// rewrites them, or reads without forwarding) from growing the state:
// arrivals waiting on a socket for their receive, receives waiting for
// their sends, sockets a thread read and forwarded nowhere yet.
const (
	maxArrivals = 1024
	maxSegments = 256
)

// task states on a thread's timeline.
type state uint8

const (
	onCPU state = iota
	runnable
	blocked
)

type timeline struct {
	ts      []uint64
	st      []state
	initial state
	cur     state
	seen    bool
	softirq [][2]uint64 // intervals in which a softirq interrupted the thread
}

// move records that the thread went from state before to s at t.
func (tl *timeline) move(t uint64, before, s state) {
	if !tl.seen {
		tl.seen, tl.initial = true, before
	}
	tl.ts = append(tl.ts, t)
	tl.st = append(tl.st, s)
	tl.cur = s
}

// split integrates the timeline over [a, s).
func (tl *timeline) split(a, s uint64) Split {
	var parts [3]uint64
	cur := onCPU // a thread never switched in the window ran throughout
	if tl.seen {
		cur = tl.initial
	}
	i := sort.Search(len(tl.ts), func(i int) bool { return tl.ts[i] > a })
	if i > 0 {
		cur = tl.st[i-1]
	}
	t := a
	for ; i < len(tl.ts) && tl.ts[i] < s; i++ {
		parts[cur] += tl.ts[i] - t
		t, cur = tl.ts[i], tl.st[i]
	}
	parts[cur] += s - t
	var soft uint64
	j := sort.Search(len(tl.softirq), func(j int) bool { return tl.softirq[j][1] > a })
	for ; j < len(tl.softirq) && tl.softirq[j][0] < s; j++ {
		soft += min(s, tl.softirq[j][1]) - max(a, tl.softirq[j][0])
	}
	soft = min(soft, parts[onCPU])
	return Split{
		Blocked:  time.Duration(parts[blocked]),
		Runnable: time.Duration(parts[runnable]),
		OnCPU:    time.Duration(parts[onCPU] - soft),
		Softirq:  time.Duration(soft),
	}
}

type arrival struct {
	t     uint64
	end   uint32 // the sequence number after the arrival's last byte
	bytes int
}

// pending is an arrival read, waiting for the send of its last byte.
type pending struct {
	t     uint64
	end   uint32 // as its arrival's
	bytes int
}

// span is one receive's bytes in its socket's stream, [start, end).
type span struct{ start, end uint32 }

// sock is what a window tells of one socket (a struct sock's address,
// taken by a new connection's socket once closed: its ports tell them
// apart). Its bytes are forwarded to its partner, and the partner's to
// it; a send on it of bytes ending at write_seq w has forwarded the
// partner's up to w - delta, as a proxy forwards a stream: byte for byte.
type sock struct {
	local, remote uint16
	lastEnd       uint32 // rcv_nxt at its last arrival
	arrived       bool
	arrivals      []arrival // queued, not read yet
	read          []pending // read, their last byte not sent yet
	spans         []span    // receives not forwarded yet (to anchor delta)
	readEnd       uint32    // copied_seq after its last receive
	hasRead       bool
	reader        uint32 // the thread that read it last
	lastN         int    // its last receive's bytes
	partner       uint64
	delta         uint32
	anchored      bool
}

// thread is what a proxy thread read from sockets not paired yet: the
// candidates to pair with a socket it sends on.
type thread struct{ unpaired []uint64 }

func seqBefore(a, b uint32) bool { return int32(a-b) < 0 }

// anchor is where, in the stream of in, the first send seen of n bytes
// on its partner ends: at the end of the latest receive whose bytes, with
// those of the receives just before it, are n (the send forwards whole
// receives, the last ones: those before were sent unseen, before the
// window or in a lost record); else, a partial send, n bytes into the
// oldest receive not forwarded.
func (in *sock) anchor(n int) uint32 {
	for j := len(in.spans) - 1; j >= 0; j-- {
		for i := j; i >= 0; i-- {
			d := int(in.spans[j].end - in.spans[i].start)
			if d == n {
				return in.spans[j].end
			}
			if d > n {
				break
			}
		}
	}
	if len(in.spans) > 0 {
		return in.spans[0].start + uint32(n)
	}
	return in.readEnd
}

// Analyze turns one window's events (sorted here, in place, by time) into
// chunks, given which sockets the proxy accepted (by their local and
// remote ports), and calls out for each.
//
// An arrival is read by the receive whose byte range holds its last byte
// (by sequence numbers), and sent by the send on the socket's partner
// whose range reaches it: a socket is paired, for both ways, with the
// first it is forwarded to, and from then on a send's write_seq is an
// offset in its partner's stream. A send seen nowhere (before the window,
// in a lost record) loses its chunks, without moving the others', and
// receives of 0 bytes or an error make nothing.
// A window is analysed alone: its first arrivals may have been read in
// the window before, and are lost, as chunks cut by its end are.
func Analyze(events []tracer.Event, accepted func(local, remote uint16) bool, out func(Chunk)) Window {
	slices.SortStableFunc(events, func(a, b tracer.Event) int {
		switch {
		case a.Time < b.Time:
			return -1
		case a.Time > b.Time:
			return 1
		}
		return 0
	})
	a := &analysis{accepted: accepted, threads: map[uint32]*thread{}, timelines: map[uint32]*timeline{},
		socks: map[uint64]*sock{}, softirqAt: map[uint32][2]uint64{}}
	for i := range events {
		a.event(&events[i])
	}
	// A chunk's split needs its thread's timeline up to its send, which
	// later events may still extend: it is taken once the window is read.
	for i := range a.chunks {
		c := &a.chunks[i]
		c.Split = a.timeline(uint32(c.Tid)).split(c.Arrival, c.Sent)
		out(*c)
	}
	return a.w
}

// analysis is one window's state while Analyze reads its events in time
// order: the threads' timelines, each socket's arrivals, reads and
// partner, and the chunks matched so far.
type analysis struct {
	accepted  func(local, remote uint16) bool
	w         Window
	threads   map[uint32]*thread
	timelines map[uint32]*timeline
	socks     map[uint64]*sock
	softirqAt map[uint32][2]uint64 // CPU -> entry time, interrupted tid
	chunks    []Chunk
}

// event reads one event: a scheduler or softirq event moves a thread's
// timeline, a socket event moves bytes.
func (a *analysis) event(e *tracer.Event) {
	switch e.Kind {
	case tracer.KindFork:
		if e.Tgid2 != e.Tgid {
			a.w.Forks = append(a.w.Forks, int(e.Tgid2))
		}
	case tracer.KindSwitch:
		// Recorded when either task is followed; a timeline of one that
		// is not is never read.
		s := blocked
		if e.Arg == 0 || e.Arg2 != 0 { // still runnable, or preempted
			s = runnable
		}
		a.timeline(e.Tid).move(e.Time, onCPU, s)
		a.timeline(e.Tid2).move(e.Time, runnable, onCPU)
	case tracer.KindWaking, tracer.KindWakeupNew:
		// A task woken while still on its CPU (before it switched out)
		// never blocked.
		if tl := a.timeline(e.Tid2); !tl.seen || tl.cur == blocked {
			tl.move(e.Time, blocked, runnable)
		}
	case tracer.KindSoftirqEntry:
		a.softirqAt[e.CPU] = [2]uint64{e.Time, uint64(e.Tid)}
	case tracer.KindSoftirqExit:
		if at, ok := a.softirqAt[e.CPU]; ok && at[1] == uint64(e.Tid) {
			tl := a.timeline(e.Tid)
			tl.softirq = append(tl.softirq, [2]uint64{at[0], e.Time})
		}
		delete(a.softirqAt, e.CPU)
	case tracer.KindDataReady:
		a.arrived(e)
	case tracer.KindRecv:
		if n := int(int64(e.Arg2)); n > 0 { // else nothing read: EOF, EAGAIN, an error
			a.received(e, n)
		}
	case tracer.KindSend:
		if n := int(int64(e.Arg2)); n > 0 {
			a.sent(e, n)
		}
	}
}

// thread is the state of proxy thread tid, counted among the window's
// threads when first seen.
func (a *analysis) thread(tid uint32) *thread {
	th := a.threads[tid]
	if th == nil {
		th = &thread{}
		a.threads[tid] = th
		a.w.Threads = append(a.w.Threads, int(tid))
	}
	return th
}

func (a *analysis) timeline(tid uint32) *timeline {
	tl := a.timelines[tid]
	if tl == nil {
		tl = &timeline{}
		a.timelines[tid] = tl
	}
	return tl
}

// sockOf is the state of the socket of a socket record; a record of
// other ports is a new connection's socket at the address of a closed
// one, which starts afresh.
func (a *analysis) sockOf(e *tracer.Event) *sock {
	local, remote := e.SockPorts()
	st := a.socks[e.Arg]
	if st == nil || st.local != local || st.remote != remote {
		if st != nil {
			a.unpair(st)
		}
		st = &sock{local: local, remote: remote}
		a.socks[e.Arg] = st
	}
	return st
}

// unpair forgets st's partner's pairing: its bytes were for the
// connection gone.
func (a *analysis) unpair(st *sock) {
	if p := a.socks[st.partner]; st.partner != 0 && p != nil && p.partner != 0 {
		*p = sock{local: p.local, remote: p.remote, lastEnd: p.lastEnd, arrived: p.arrived,
			arrivals: p.arrivals, readEnd: p.readEnd, hasRead: p.hasRead}
	}
}

// arrived queues an arrival (sk_data_ready) on its socket: its bytes are
// those since the socket's last arrival, unknown (0) for the first.
func (a *analysis) arrived(e *tracer.Event) {
	st := a.sockOf(e)
	if len(st.arrivals) >= maxArrivals {
		st.arrivals = st.arrivals[1:]
	}
	bytes := 0
	if st.arrived && seqBefore(st.lastEnd, e.Tid2) {
		bytes = int(e.Tid2 - st.lastEnd)
	}
	st.lastEnd, st.arrived = e.Tid2, true
	st.arrivals = append(st.arrivals, arrival{t: e.Time, end: e.Tid2, bytes: bytes})
}

// received moves the arrivals a receive of n bytes read (those whose last
// byte it holds) to the socket's read list, records its span, and offers
// a socket paired with none to the reading thread's candidates.
func (a *analysis) received(e *tracer.Event, n int) {
	th := a.thread(e.Tid)
	st := a.sockOf(e)
	end := e.Tid2
	start := end - uint32(n)
	k := 0
	for ; k < len(st.arrivals); k++ {
		ar := st.arrivals[k]
		if seqBefore(end, ar.end) {
			break // not read yet
		}
		if !seqBefore(start, ar.end) {
			continue // read by a receive before the window
		}
		bytes := ar.bytes
		if off := int(ar.end - start); bytes == 0 || bytes > off {
			bytes = off
		}
		if len(st.read) >= maxSegments {
			st.read = st.read[1:]
		}
		st.read = append(st.read, pending{t: ar.t, end: ar.end, bytes: bytes})
	}
	st.arrivals = st.arrivals[k:]
	if len(st.spans) >= maxSegments {
		st.spans = st.spans[1:]
	}
	st.spans = append(st.spans, span{start, end})
	st.readEnd, st.hasRead = end, true
	st.reader, st.lastN = e.Tid, n
	if st.partner == 0 {
		th.unpaired = slices.DeleteFunc(th.unpaired, func(sk uint64) bool { return sk == e.Arg })
		if len(th.unpaired) >= maxSegments {
			th.unpaired = th.unpaired[1:]
		}
		th.unpaired = append(th.unpaired, e.Arg)
	}
}

// sent matches a send of n bytes to the inbound socket it forwards (its
// partner, paired now if it has none) and makes a chunk of each read
// arrival whose last byte the send carries.
func (a *analysis) sent(e *tracer.Event, n int) {
	in, inbound, upTo, ok := a.forwarded(e, n)
	if !ok {
		return
	}
	from := upTo - uint32(n)
	k := 0
	for ; k < len(in.read); k++ {
		p := in.read[k]
		if seqBefore(upTo, p.end) {
			break // its last byte is not sent yet
		}
		if !seqBefore(from, p.end) {
			continue // sent by a send not seen
		}
		dir := ToClient
		if a.accepted(in.local, in.remote) {
			dir = ToUpstream
		}
		a.chunks = append(a.chunks, Chunk{Direction: dir, Arrival: p.t, Sent: e.Time, Bytes: p.bytes,
			Tid: int(e.Tid), Pid: int(e.Tgid), Inbound: inbound})
	}
	in.read = in.read[k:]
	k = 0
	for k < len(in.spans) && !seqBefore(upTo, in.spans[k].end) {
		k++
	}
	in.spans = in.spans[k:]
}

// forwarded is the inbound socket a send of n bytes forwards, its
// address, and the offset in its stream the send reaches; false for a
// send that forwards nothing read in the window (an answer the proxy makes
// itself). The first send on a pair anchors the offset between the two
// streams.
func (a *analysis) forwarded(e *tracer.Event, n int) (in *sock, inbound uint64, upTo uint32, ok bool) {
	th := a.thread(e.Tid)
	out := a.sockOf(e)
	in = a.socks[out.partner]
	if out.partner == 0 || in == nil || in.partner != e.Arg {
		out.partner, out.anchored = 0, false
		sk := pair(th, a.socks, e.Arg, e.Tid, n)
		if sk == 0 {
			return nil, 0, 0, false // no bytes to forward
		}
		in = a.socks[sk]
		in.partner, out.partner = e.Arg, sk
		in.anchored = false
	}
	if !in.hasRead {
		return nil, 0, 0, false
	}
	w := e.Tid2
	if !out.anchored {
		out.delta, out.anchored = w-in.anchor(n), true
	}
	upTo = w - out.delta
	if seqBefore(in.readEnd, upTo) {
		// No proxy sends bytes it has not read: the anchor was ahead of
		// a backlog. The send ends at the last read.
		out.delta, upTo = w-in.readEnd, in.readEnd
	}
	return in, out.partner, upTo, true
}

// pair finds the socket whose bytes a thread's send of n bytes on out,
// paired with none, forwards: one the thread read and paired with none
// either; of those, the one read longest ago whose last receive was n
// bytes (a send of what one receive read, the connections served in the
// order they were read), else the one read last (a send of part of a
// receive, or of several). 0 if the thread read none.
func pair(th *thread, socks map[uint64]*sock, out uint64, tid uint32, n int) uint64 {
	th.unpaired = slices.DeleteFunc(th.unpaired, func(sk uint64) bool {
		st := socks[sk]
		return st == nil || st.partner != 0 || st.reader != tid
	})
	var best uint64
	for i, sk := range th.unpaired {
		if sk == out {
			continue
		}
		if socks[sk].lastN == n {
			best = sk
			th.unpaired = slices.Delete(th.unpaired, i, i+1)
			return best
		}
		best = sk
	}
	if best != 0 {
		th.unpaired = slices.DeleteFunc(th.unpaired, func(sk uint64) bool { return sk == best })
	}
	return best
}
