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
// arrivals waiting on a socket, reads waiting on a thread for their
// sends.
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

type pending struct {
	t     uint64
	off   int // the offset in its segment after its last byte
	bytes int
}

// segment is one read of a thread, waiting for the sends that forward it.
type segment struct {
	sk            uint64
	local, remote uint16
	n, sent       int
	chunks        []pending
}

// thread is a proxy thread's reads waiting for their sends.
type thread struct{ fifo []segment }

// Analyze turns one window's events (sorted here, in place, by time) into
// chunks, given which sockets the proxy accepted (by their local and
// remote ports), and calls out for each.
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
	var w Window
	threads := map[uint32]*thread{}
	get := func(tid uint32) *thread {
		th := threads[tid]
		if th == nil {
			th = &thread{}
			threads[tid] = th
			w.Threads = append(w.Threads, int(tid))
		}
		return th
	}
	timelines := map[uint32]*timeline{}
	timeline := func(tid uint32) *timeline {
		tl := timelines[tid]
		if tl == nil {
			tl = &timeline{}
			timelines[tid] = tl
		}
		return tl
	}
	arrivals := map[uint64][]arrival{}
	lastEnd := map[uint64]uint32{}
	softirqAt := map[uint32][2]uint64{} // CPU -> entry time, interrupted tid
	var chunks []Chunk
	for i := range events {
		e := &events[i]
		switch e.Kind {
		case tracer.KindFork:
			if e.Tgid2 != e.Tgid {
				w.Forks = append(w.Forks, int(e.Tgid2))
			}
		case tracer.KindSwitch:
			// Recorded when either task is followed; a timeline of one
			// that is not is never read.
			s := blocked
			if e.Arg == 0 || e.Arg2 != 0 { // still runnable, or preempted
				s = runnable
			}
			timeline(e.Tid).move(e.Time, onCPU, s)
			timeline(e.Tid2).move(e.Time, runnable, onCPU)
		case tracer.KindWaking, tracer.KindWakeupNew:
			// A task woken while still on its CPU (before it switched
			// out) never blocked.
			if tl := timeline(e.Tid2); !tl.seen || tl.cur == blocked {
				tl.move(e.Time, blocked, runnable)
			}
		case tracer.KindSoftirqEntry:
			softirqAt[e.CPU] = [2]uint64{e.Time, uint64(e.Tid)}
		case tracer.KindSoftirqExit:
			if at, ok := softirqAt[e.CPU]; ok && at[1] == uint64(e.Tid) {
				tl := timeline(e.Tid)
				tl.softirq = append(tl.softirq, [2]uint64{at[0], e.Time})
			}
			delete(softirqAt, e.CPU)
		case tracer.KindDataReady:
			q := arrivals[e.Arg]
			if len(q) >= maxArrivals {
				q = q[1:]
			}
			bytes := 0
			if p, ok := lastEnd[e.Arg]; ok && int32(e.Tid2-p) > 0 {
				bytes = int(e.Tid2 - p)
			}
			lastEnd[e.Arg] = e.Tid2
			arrivals[e.Arg] = append(q, arrival{t: e.Time, end: e.Tid2, bytes: bytes})
		case tracer.KindRecv:
			th := get(e.Tid)
			n := int(e.Arg2)
			end := e.Tid2
			start := end - uint32(n)
			local, remote := e.SockPorts()
			seg := segment{sk: e.Arg, local: local, remote: remote, n: n}
			q := arrivals[e.Arg]
			k := 0
			for ; k < len(q); k++ {
				a := q[k]
				if int32(a.end-end) > 0 {
					break // not read yet
				}
				if int32(a.end-start) <= 0 {
					continue // read by a receive before the window
				}
				off := int(a.end - start)
				bytes := a.bytes
				if bytes == 0 || bytes > off {
					bytes = off
				}
				seg.chunks = append(seg.chunks, pending{t: a.t, off: off, bytes: bytes})
			}
			arrivals[e.Arg] = q[k:]
			if len(th.fifo) >= maxSegments {
				th.fifo = th.fifo[1:]
			}
			th.fifo = append(th.fifo, seg)
		case tracer.KindSend:
			th := get(e.Tid)
			n := int(e.Arg2)
			for n > 0 && len(th.fifo) > 0 {
				seg := &th.fifo[0]
				if seg.sk == e.Arg {
					// Bytes read from the socket they are sent to are not
					// forwarded ones: an answer the proxy makes itself.
					th.fifo = th.fifo[1:]
					continue
				}
				take := min(n, seg.n-seg.sent)
				seg.sent += take
				n -= take
				done := 0
				for _, p := range seg.chunks {
					if p.off > seg.sent {
						break
					}
					dir := ToClient
					if accepted(seg.local, seg.remote) {
						dir = ToUpstream
					}
					chunks = append(chunks, Chunk{Direction: dir, Arrival: p.t, Sent: e.Time, Bytes: p.bytes, Tid: int(e.Tid), Inbound: seg.sk})
					done++
				}
				seg.chunks = seg.chunks[done:]
				if seg.sent >= seg.n {
					th.fifo = th.fifo[1:]
				}
			}
		}
	}
	for i := range chunks {
		c := &chunks[i]
		c.Split = timeline(uint32(c.Tid)).split(c.Arrival, c.Sent)
		out(*c)
	}
	return w
}
