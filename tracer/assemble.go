package tracer

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/hoplat/hoplat/stats"
	"github.com/hoplat/hoplat/tracer/split"
)

// SegmentKind says what a component was doing during a Segment.
type SegmentKind uint8

const (
	// SegOther is time the events do not explain: the chain of wake-ups
	// broke (a waker not followed, a record lost, a request that began
	// before the trace).
	SegOther SegmentKind = iota
	// SegUser is a task on CPU outside system calls.
	SegUser
	// SegKernel is a task on CPU inside a system call, or a followed
	// kernel thread on CPU.
	SegKernel
	// SegRunnable is a task woken (or preempted) and waiting for its CPU.
	SegRunnable
	// SegIdleExit is the part of a wake-up the woken task's CPU spent
	// leaving idle (from the wake-up to cpu_idle's exit there).
	SegIdleExit
	// SegSoftirq is softirq time on the CPU of a task on the path (on
	// loopback the receive half of a send runs there).
	SegSoftirq
	// SegLeg is the sender's system call from its entry to the wake-up of
	// the next component: the kernel's path between two components, less
	// the softirq time inside it.
	SegLeg
	segKindEnd
)

var segKindNames = [...]string{
	SegOther: "other", SegUser: "user", SegKernel: "kernel", SegRunnable: "runnable",
	SegIdleExit: "idle_exit", SegSoftirq: "softirq", SegLeg: "leg",
}

func (k SegmentKind) String() string {
	if k < segKindEnd {
		return segKindNames[k]
	}
	return "SegmentKind(?)"
}

// Segment is one stretch of a request's critical path.
type Segment struct {
	Start, End uint64 // ns, CLOCK_MONOTONIC (the events' clock)
	Kind       SegmentKind
	Component  string // "" for SegOther
	Tid        int    // the task on the path (the woken one for SegRunnable, SegIdleExit)
	CPU        int    // the CPU it ran or waited on; -1 for SegOther
	// By is, for SegRunnable and SegIdleExit, the task that woke Tid; 0
	// when Tid was preempted rather than woken.
	By int
	// Behind is, for SegRunnable, the task the CPU ran while Tid waited:
	// the one it preempted Tid for, or the one it switched away from to
	// run Tid; 0 for the idle task.
	Behind int
	// Events counts the tracer's records on CPU during the segment, and
	// Tracer is the time taken off for them: Events times the calibrated
	// cost per event, at most End-Start.
	Events int
	Tracer time.Duration
}

// Duration is the segment's length less the tracer's own cost in it.
func (s *Segment) Duration() time.Duration {
	return time.Duration(s.End-s.Start) - s.Tracer
}

// Request is one round trip of the client and its critical path.
type Request struct {
	Tid        int    // the client thread whose receive completed it
	FD         int    // the socket's fd in the client
	Start, End uint64 // send's entry, the last receive's return (ns)
	// Segments partition [Start, End] in time order.
	Segments []Segment
	// Migrations counts sched_migrate_task events of followed tasks
	// during the request.
	Migrations int
}

// Events counts the tracer's records on the request's path (the
// segments' Events).
func (r *Request) Events() int {
	n := 0
	for i := range r.Segments {
		n += r.Segments[i].Events
	}
	return n
}

// RTT is the traced round trip: the tracer's cost included.
func (r *Request) RTT() time.Duration { return time.Duration(r.End - r.Start) }

// Tracer is the time the tracer's records took from the request's path.
func (r *Request) Tracer() time.Duration {
	var d time.Duration
	for i := range r.Segments {
		d += r.Segments[i].Tracer
	}
	return d
}

// Sum is the segments' durations added up: the round trip the request
// would have taken untraced, as far as the calibration can say.
func (r *Request) Sum() time.Duration {
	var d time.Duration
	for i := range r.Segments {
		d += r.Segments[i].Duration()
	}
	return d
}

// IdentityPct is |Sum + Tracer - RTT| / RTT in percent: how far the
// segments are from partitioning the measured round trip.
func (r *Request) IdentityPct() float64 {
	rtt := r.RTT()
	if rtt <= 0 {
		return math.NaN()
	}
	return 100 * math.Abs(float64(r.Sum()+r.Tracer()-rtt)) / float64(rtt)
}

// CoveragePct is the share of Sum that the events explain: all but
// SegOther, in percent.
func (r *Request) CoveragePct() float64 {
	sum := r.Sum()
	if sum <= 0 {
		return math.NaN()
	}
	var other time.Duration
	for i := range r.Segments {
		if r.Segments[i].Kind == SegOther {
			other += r.Segments[i].Duration()
		}
	}
	return 100 * float64(sum-other) / float64(sum)
}

// Longest returns the request's longest segment (by Duration): for a
// tail request, usually where it went wrong ("runnable 2.1 ms on CPU 0
// behind tid N"). It reports false for a request without segments.
func (r *Request) Longest() (Segment, bool) {
	if len(r.Segments) == 0 {
		return Segment{}, false
	}
	k := 0
	for i := range r.Segments {
		if r.Segments[i].Duration() > r.Segments[k].Duration() {
			k = i
		}
	}
	return r.Segments[k], true
}

// Split sums the request's segments by kind, and user, kernel and softirq
// time by whether the component is a relay (IsRelay): DESIGN.md's
// p50_split_us of one request.
func (r *Request) Split() split.Split {
	var s split.Split
	for i := range r.Segments {
		g := &r.Segments[i]
		us := float64(g.Duration()) / 1e3
		switch g.Kind {
		case SegUser, SegKernel:
			switch {
			case !IsRelay(g.Component):
				s.Endpoints += us
			case g.Kind == SegUser:
				s.RelayUser += us
			default:
				s.RelayKernel += us
			}
		case SegRunnable:
			s.Runnable += us
		case SegIdleExit:
			s.IdleExit += us
			if IsRelay(g.Component) {
				s.IdleExitRelay += us
			}
		case SegSoftirq:
			if IsRelay(g.Component) {
				s.RelaySoftirq += us
			} else {
				s.Softirq += us
			}
		case SegLeg:
			s.Legs += us
		default:
			s.Other += us
		}
	}
	return s
}

// Quantile returns the request at quantile q (0..1, nearest rank) of reqs
// by round trip: Quantile(reqs, 0.5) is the median request, 0.99 the p99.
// It reports false for no requests.
func Quantile(reqs []Request, q float64) (Request, bool) {
	if len(reqs) == 0 {
		return Request{}, false
	}
	idx := make([]int, len(reqs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return reqs[idx[a]].RTT() < reqs[idx[b]].RTT() })
	return reqs[idx[stats.Rank(len(reqs), q)]], true
}

// IdentityPct is the median over reqs of each request's IdentityPct: the
// figure DESIGN.md's trace.identity_pct reports. NaN for no requests.
func IdentityPct(reqs []Request) float64 {
	return medianOf(reqs, (*Request).IdentityPct)
}

// CoveragePct is the median over reqs of each request's CoveragePct.
func CoveragePct(reqs []Request) float64 {
	return medianOf(reqs, (*Request).CoveragePct)
}

func medianOf(reqs []Request, f func(*Request) float64) float64 {
	if len(reqs) == 0 {
		return math.NaN()
	}
	v := make([]float64, len(reqs))
	for i := range reqs {
		v[i] = f(&reqs[i])
	}
	return stats.Median(v)
}

// never is the end of what has not ended when the trace stops.
const never = math.MaxUint64

// run is one stay of a task on a CPU, from the switch that put it there
// to the one that took it off.
type run struct {
	in, out uint64
	cpu     int
	behind  int  // the task switched out to run this one
	next    int  // the task switched in when this one left
	ready   bool // it left still runnable: preempted or yielding
}

type call struct {
	start, end uint64
	nr         uint64
	fd         int
	ret        int64
}

type wake struct {
	t     uint64
	waker int
}

type task struct {
	tid, tgid int
	component string
	kthread   bool
	runs      []run
	calls     []call
	wakes     []wake
	open      bool // calls' last entry has not returned
}

type span struct{ start, end uint64 }

// cpuSwitch is a switch on one CPU: from t the CPU ran next.
type cpuSwitch struct {
	t    uint64
	next int
}

type cpuState struct {
	idle, softirq []span
	switches      []cpuSwitch
	events        []uint64 // times of every record taken on this CPU
}

// assembler indexes one trace by task and by CPU.
type assembler struct {
	cfg        *Config
	tasks      map[int]*task
	cpus       map[int]*cpuState
	migrations []uint64
	woke       map[int][]wake // by waker: when it woke whom (wake.waker holds the woken)
	perEvent   time.Duration
}

// Assemble finds the client's requests in events and walks each one's
// critical path back from the return of its last receive to its send,
// through the chain of wake-ups. events is sorted by time in place.
// perEvent is the tracer's own cost per record (Tracer.PerEvent; 0 takes
// nothing off). The first and last request of each socket are left out:
// the trace may cut them.
func Assemble(cfg Config, events []Event, perEvent time.Duration) []Request {
	slices.SortStableFunc(events, func(a, b Event) int { return cmp.Compare(a.Time, b.Time) })
	a := &assembler{cfg: &cfg, tasks: map[int]*task{}, cpus: map[int]*cpuState{}, woke: map[int][]wake{}, perEvent: perEvent}
	for i := range events {
		a.add(&events[i])
	}
	reqs := a.requests()
	for i := range reqs {
		if !cfg.ChargeHolder || !a.holders(&reqs[i]) {
			a.walk(&reqs[i])
		}
	}
	return reqs
}

func (a *assembler) task(tid, tgid uint32) *task {
	t := a.tasks[int(tid)]
	if t == nil {
		t = &task{tid: int(tid), tgid: int(tgid)}
		if c, ok := a.cfg.Threads[t.tid]; ok {
			t.component, t.kthread = c, true
		} else if c, ok := a.cfg.Components[t.tgid]; ok && tid != 0 {
			t.component = c
		}
		a.tasks[t.tid] = t
	}
	return t
}

func (a *assembler) cpu(n uint32) *cpuState {
	c := a.cpus[int(n)]
	if c == nil {
		c = &cpuState{}
		a.cpus[int(n)] = c
	}
	return c
}

func (a *assembler) add(e *Event) {
	c := a.cpu(e.CPU)
	c.events = append(c.events, e.Time)
	switch e.Kind {
	case KindSwitch:
		prev, next := a.task(e.Tid, e.Tgid), a.task(e.Tid2, e.Tgid2)
		if n := len(prev.runs); n > 0 && prev.runs[n-1].out == never {
			r := &prev.runs[n-1]
			r.out, r.next, r.ready = e.Time, next.tid, e.Arg == 0 || e.Arg2 != 0
		} else {
			// On CPU since before the trace began.
			prev.runs = append(prev.runs, run{in: 0, out: e.Time, cpu: int(e.CPU), next: next.tid, ready: e.Arg == 0 || e.Arg2 != 0})
		}
		if n := len(next.runs); n > 0 && next.runs[n-1].out == never {
			// A lost switch-out: close the stay where the trace lost it.
			next.runs[n-1].out = e.Time
		}
		next.runs = append(next.runs, run{in: e.Time, out: never, cpu: int(e.CPU), behind: prev.tid})
		c.switches = append(c.switches, cpuSwitch{t: e.Time, next: next.tid})
	case KindWaking, KindWakeupNew:
		woken := a.task(e.Tid2, e.Tgid2)
		a.task(e.Tid, e.Tgid)
		woken.wakes = append(woken.wakes, wake{t: e.Time, waker: int(e.Tid)})
		a.woke[int(e.Tid)] = append(a.woke[int(e.Tid)], wake{t: e.Time, waker: woken.tid})
	case KindMigrate:
		if a.task(e.Tid2, e.Tgid2).component != "" {
			a.migrations = append(a.migrations, e.Time)
		}
	case KindSysEnter:
		t := a.task(e.Tid, e.Tgid)
		if t.open {
			// The exit was lost: end the call where the next begins.
			t.calls[len(t.calls)-1].end = e.Time
		}
		t.calls = append(t.calls, call{start: e.Time, end: never, nr: e.Arg, fd: int(int32(e.Arg2)), ret: -1})
		t.open = true
	case KindSysExit:
		t := a.task(e.Tid, e.Tgid)
		if t.open {
			cl := &t.calls[len(t.calls)-1]
			cl.end, cl.ret = e.Time, int64(e.Arg)
			t.open = false
		} else {
			// In a call since before the trace began; which one is unknown.
			t.calls = append(t.calls, call{start: 0, end: e.Time, nr: math.MaxUint64, fd: -1, ret: int64(e.Arg)})
		}
	case KindSoftirqEntry:
		c.softirq = openSpan(c.softirq, e.Time)
	case KindSoftirqExit:
		c.softirq = closeSpan(c.softirq, e.Time)
	case KindIdle:
		if e.Arg == IdleExit {
			c.idle = closeSpan(c.idle, e.Time)
		} else {
			c.idle = openSpan(c.idle, e.Time)
		}
	}
}

func openSpan(s []span, t uint64) []span {
	if n := len(s); n > 0 && s[n-1].end == never {
		s[n-1].end = t // the exit was lost
	}
	return append(s, span{start: t, end: never})
}

func closeSpan(s []span, t uint64) []span {
	if n := len(s); n > 0 && s[n-1].end == never {
		s[n-1].end = t
		return s
	}
	return append(s, span{start: 0, end: t}) // began before the trace
}

// requests pairs the client's sends and receives per socket.
func (a *assembler) requests() []Request {
	type io struct {
		tid  int
		tgid int
		call call
		send bool
	}
	var ios []io
	client := a.cfg.client()
	for _, t := range a.tasks {
		if t.component != client || t.kthread {
			continue
		}
		for _, c := range t.calls {
			if c.start == 0 || c.end == never {
				continue
			}
			switch classify(c.nr) {
			case callSend:
				ios = append(ios, io{t.tid, t.tgid, c, true})
			case callRecv:
				if c.ret > 0 {
					ios = append(ios, io{t.tid, t.tgid, c, false})
				}
			}
		}
	}
	slices.SortFunc(ios, func(x, y io) int { return cmp.Compare(x.call.start, y.call.start) })
	type stream struct {
		tgid, fd int
	}
	type pending struct {
		req   Request
		recvd bool
		first bool
	}
	open := map[stream]*pending{}
	var reqs []Request
	for _, o := range ios {
		k := stream{o.tgid, o.call.fd}
		p := open[k]
		if o.send {
			switch {
			case p == nil:
				open[k] = &pending{req: Request{FD: o.call.fd, Start: o.call.start}, first: true}
			case p.recvd:
				if !p.first {
					reqs = append(reqs, p.req)
				}
				*p = pending{req: Request{FD: o.call.fd, Start: o.call.start}}
			}
			continue
		}
		if p != nil {
			p.req.End, p.req.Tid, p.recvd = o.call.end, o.tid, true
		}
	}
	for i := range reqs {
		a.backOnCPU(&reqs[i])
	}
	slices.SortFunc(reqs, func(x, y Request) int { return cmp.Compare(x.Start, y.Start) })
	return reqs
}

// backOnCPU ends r when the client is back on its CPU after the receive
// returned, when it was preempted on its way out of the call: the client
// times a round trip up to its own next instruction, and the time it
// waited runnable meanwhile is the round trip's. A UNIX stream shows it:
// the client's read frees the server's send buffer and wakes the server,
// asleep in its own read on the socket's one wait queue; on a shared CPU
// the server preempts the client as it leaves the read, finds nothing,
// and sleeps again: more switches a request than TCP's, and a client's
// p50 above the traced round trip (docs/measurements.md, "Held calls").
func (a *assembler) backOnCPU(r *Request) {
	x := a.tasks[r.Tid]
	if x == nil {
		return
	}
	i := sort.Search(len(x.runs), func(i int) bool { return x.runs[i].in > r.End }) - 1
	if i < 0 || i+1 >= len(x.runs) {
		return
	}
	rn, next := &x.runs[i], &x.runs[i+1]
	if !rn.ready || rn.out < r.End {
		return
	}
	// No system call between the receive's return and the preemption:
	// it is the way out of the receive, not the client's next move.
	j := sort.Search(len(x.calls), func(j int) bool { return x.calls[j].start > r.End })
	if j < len(x.calls) && x.calls[j].start <= rn.out {
		return
	}
	// A nanosecond into the run it came back in, so that the walk starts
	// there and goes back through the wait (walk, displaced).
	r.End = min(next.in+1, next.out)
}

// maxSteps bounds one walk: a request crosses each component a few times,
// and a walk that has not reached the send by then has lost its way.
const maxSteps = 4096

// walk fills r.Segments with r's critical path, going back from the
// client's receive return through whoever made each task runnable.
func (a *assembler) walk(r *Request) {
	w := walker{a: a, t: r.End, stop: r.Start, x: a.tasks[r.Tid]}
	for steps := 0; w.t > w.stop; steps++ {
		if w.x == nil || w.x.component == "" || steps == maxSteps {
			w.other(w.stop, w.t)
			break
		}
		if !w.step() {
			break
		}
	}
	a.finish(r, w.rev)
}

// walker is one walk back along a request's critical path: the segments
// so far (rev, built backwards from the request's end), the time t it has
// reached (never before stop, the request's start), and the task x it is
// in at t.
type walker struct {
	a       *assembler
	rev     []Segment
	t, stop uint64
	x       *task
	from    string // the component x just woke, when x is a waker
	legAt   uint64 // when x woke another component, if it did (see running)
}

// other adds a stretch the walk cannot give to a component.
func (w *walker) other(lo, hi uint64) {
	if hi > lo {
		w.rev = append(w.rev, Segment{Start: lo, End: hi, Kind: SegOther, CPU: -1})
	}
}

// step goes back through x's stay on CPU that ends at t and then through
// what put x there: a preemption (preempted) or a wake-up (woken). It
// reports whether the walk goes on.
func (w *walker) step() bool {
	a, x := w.a, w.x
	i := sort.Search(len(x.runs), func(i int) bool { return x.runs[i].in >= w.t }) - 1
	if i < 0 {
		w.other(w.stop, w.t)
		return false
	}
	rn := &x.runs[i]
	if rn.out < w.t {
		// Off CPU at t by its own switches, though t says it ran (a
		// record lost, or two CPUs' clocks a hair apart).
		w.other(max(rn.out, w.stop), w.t)
		if w.t = rn.out; w.t <= w.stop {
			return false
		}
	}
	lo := max(rn.in, w.stop)
	if w.from != "" && w.from != x.component {
		w.legAt = w.t
	}
	w.rev = a.running(w.rev, x, rn.cpu, lo, w.t, w.legAt)
	w.from, w.legAt = "", 0
	if rn.in <= w.stop {
		return false
	}
	w.t = rn.in
	var after uint64 // the wake-up is after the previous stay on CPU
	if i > 0 {
		p := &x.runs[i-1]
		after = p.out
		if p.ready {
			w.preempted(p, rn)
			return true
		}
	}
	return w.woken(i, rn, after)
}

// preempted goes back from x's return to CPU (rn) to the stay before it
// (p), which ended in a preemption.
func (w *walker) preempted(p, rn *run) {
	a, x := w.a, w.x
	if n, ok := a.handedTo(x, rn.cpu, max(p.out, w.stop), w.t); ok {
		// Preempted, and the last to run before x came back was the
		// next component on the path: the request was in its hands, and
		// the walk follows it back to whoever woke it (the relay that
		// forwarded the request), not to x's own previous stay.
		w.x, w.from = n, ""
		return
	}
	w.rev = a.displaced(w.rev, x, rn.cpu, max(p.out, w.stop), w.t)
	w.t = p.out
	// What ran meanwhile may have been the next component, woken by x
	// before it was preempted: x's system call then is the leg to it.
	w.legAt = a.lastWake(x, p.in, p.out)
}

// woken goes back from x's stay i (rn) through the wake-up that made it
// runnable, after the previous stay ended (after), to its waker. It
// reports whether the walk goes on.
func (w *walker) woken(i int, rn *run, after uint64) bool {
	a, x := w.a, w.x
	j := sort.Search(len(x.wakes), func(j int) bool { return x.wakes[j].t > w.t }) - 1
	if j < 0 || x.wakes[j].t <= after {
		w.other(w.stop, w.t)
		return false
	}
	wk := x.wakes[j]
	lo := max(wk.t, w.stop)
	mid := lo
	if e, ok := a.idleExit(rn.cpu, wk.t, w.t); ok && e > lo {
		mid = e
	}
	if w.t > mid {
		w.rev = append(w.rev, Segment{Start: mid, End: w.t, Kind: SegRunnable,
			Component: x.component, Tid: x.tid, CPU: rn.cpu, By: wk.waker, Behind: rn.behind})
	}
	if mid > lo {
		w.rev = append(w.rev, Segment{Start: lo, End: mid, Kind: SegIdleExit,
			Component: x.component, Tid: x.tid, CPU: rn.cpu, By: wk.waker})
	}
	w.t = lo
	if wk.waker == 0 && i > 0 && IsRelay(x.component) {
		// A relay woken by the idle task: an interrupt on an idle CPU, a
		// timer the relay set itself (a sleep, a wait with a timeout, as
		// the Go runtime's monitor thread sleeps between its polls of the
		// network). The wait since it blocked is its own system call, and
		// the walk goes on from its previous stay. An endpoint's such
		// wait stays other: its time is the endpoints' either way, and
		// the client's request is not the relay's to explain.
		p := &x.runs[i-1]
		kind := SegKernel
		if !a.cfg.syscalls(x.component) {
			kind = SegUser // as running counts such a component's time
		}
		if s := max(p.out, w.stop); lo > s {
			w.rev = append(w.rev, Segment{Start: s, End: lo, Kind: kind,
				Component: x.component, Tid: x.tid, CPU: p.cpu})
		}
		w.t = p.out
		return true
	}
	w.from = x.component
	w.x = a.tasks[wk.waker]
	return true
}

// finish sets r's segments from rev (built backwards), charging each one
// the tracer's records in it, and counts r's migrations.
func (a *assembler) finish(r *Request, rev []Segment) {
	slices.Reverse(rev)
	for i := range rev {
		a.charge(&rev[i])
	}
	r.Segments = rev
	lo := sort.Search(len(a.migrations), func(i int) bool { return a.migrations[i] >= r.Start })
	hi := sort.Search(len(a.migrations), func(i int) bool { return a.migrations[i] > r.End })
	r.Migrations = hi - lo
}

// holders fills r.Segments with what the client's CPU ran over the
// request (Config.ChargeHolder): each stretch between two switches is the
// task that held the CPU, its user and kernel time and the softirqs in
// its context (running), the idle task's stretch is the CPU leaving idle
// for the next task, and any other task's is the request runnable behind
// it. It reports false where it has no switches of that CPU to go by.
func (a *assembler) holders(r *Request) bool {
	x := a.tasks[r.Tid]
	if x == nil {
		return false
	}
	i := sort.Search(len(x.runs), func(i int) bool { return x.runs[i].in >= r.End }) - 1
	if i < 0 {
		return false
	}
	cpu := x.runs[i].cpu
	c := a.cpus[cpu]
	if c == nil || len(c.switches) == 0 || c.switches[0].t > r.Start {
		return false
	}
	first := sort.Search(len(c.switches), func(i int) bool { return c.switches[i].t > r.Start }) - 1
	end := sort.Search(len(c.switches), func(i int) bool { return c.switches[i].t >= r.End })
	var rev []Segment
	hi, after := r.End, x // after: the task on CPU once the stretch ended
	for k := end - 1; k >= first; k-- {
		lo := max(c.switches[k].t, r.Start)
		if hi <= lo {
			continue
		}
		next := c.switches[k].next
		switch n := a.tasks[next]; {
		case n != nil && n.component != "" && next != 0:
			var legAt uint64
			if !IsRelay(n.component) {
				legAt = a.lastWake(n, lo, hi)
			}
			rev = a.running(rev, n, cpu, lo, hi, legAt)
			after = n
		case next == 0:
			rev = append(rev, Segment{Start: lo, End: hi, Kind: SegIdleExit, Component: after.component, Tid: after.tid, CPU: cpu})
		default:
			rev = append(rev, Segment{Start: lo, End: hi, Kind: SegRunnable, Component: after.component, Tid: after.tid,
				CPU: cpu, Behind: next})
		}
		hi = lo
	}
	a.finish(r, rev)
	return true
}

// lastWake returns when x last woke a task of another component within
// (lo, hi], or 0.
func (a *assembler) lastWake(x *task, lo, hi uint64) uint64 {
	w := a.woke[x.tid]
	for i := sort.Search(len(w), func(i int) bool { return w[i].t > hi }) - 1; i >= 0 && w[i].t > lo; i-- {
		if n := a.tasks[w[i].waker]; n != nil && n.component != "" && n.component != x.component {
			return w[i].t
		}
	}
	return 0
}

// handedTo finds the task whose stretch on cpu ended when x came back at
// hi, x having been preempted at lo, when it is a followed task of
// another component woken by someone other than x: the next one on the
// path, which x's request reached through a component on another CPU
// (a spread relay forwarding to a server that shares x's CPU).
func (a *assembler) handedTo(x *task, cpu int, lo, hi uint64) (*task, bool) {
	c := a.cpus[cpu]
	if c == nil {
		return nil, false
	}
	// The last switch before hi put in the task that ran until hi.
	k := sort.Search(len(c.switches), func(i int) bool { return c.switches[i].t >= hi }) - 1
	if k < 0 || c.switches[k].t < lo {
		return nil, false
	}
	n := a.tasks[c.switches[k].next]
	if n == nil || n == x || n.component == "" || n.component == x.component {
		return nil, false
	}
	// Woken by x itself, n is the hand-off of a packed path: x's send
	// woke it and it preempted x, and x's previous stay, its send, is
	// where the walk goes on (displaced).
	in := c.switches[k].t
	j := sort.Search(len(n.wakes), func(j int) bool { return n.wakes[j].t > in }) - 1
	if j < 0 || n.wakes[j].waker == x.tid {
		return nil, false
	}
	return n, true
}

// displaced appends (backwards) the time x waited runnable on cpu over
// [lo, hi] after it was preempted: what the CPU ran meanwhile. A followed
// task's stretch is that task's own time (on a packed path, the server x
// handed a message to, running before x could go on), anything else is x
// runnable behind it.
func (a *assembler) displaced(rev []Segment, x *task, cpu int, lo, hi uint64) []Segment {
	c := a.cpus[cpu]
	if c == nil {
		return append(rev, Segment{Start: lo, End: hi, Kind: SegRunnable, Component: x.component, Tid: x.tid, CPU: cpu})
	}
	// The switches that start a stretch inside (lo, hi), and the one
	// running at lo.
	first := max(0, sort.Search(len(c.switches), func(i int) bool { return c.switches[i].t > lo })-1)
	end := sort.Search(len(c.switches), func(i int) bool { return c.switches[i].t >= hi })
	for i := end - 1; i >= first; i-- {
		s, e := max(c.switches[i].t, lo), hi
		if i+1 < end {
			e = c.switches[i+1].t
		}
		if e <= s {
			continue
		}
		n := a.tasks[c.switches[i].next]
		if n != nil && n != x && n.component != "" {
			rev = a.running(rev, n, cpu, s, e, 0)
		} else {
			rev = append(rev, Segment{Start: s, End: e, Kind: SegRunnable, Component: x.component,
				Tid: x.tid, CPU: cpu, Behind: c.switches[i].next})
		}
		hi = s
	}
	if hi > lo {
		rev = append(rev, Segment{Start: lo, End: hi, Kind: SegRunnable, Component: x.component, Tid: x.tid, CPU: cpu})
	}
	return rev
}

// idleExit returns when cpu left idle if it was idle at the wake-up w and
// left it by the switch-in at in.
func (a *assembler) idleExit(cpu int, w, in uint64) (uint64, bool) {
	c := a.cpus[cpu]
	if c == nil {
		return 0, false
	}
	i := sort.Search(len(c.idle), func(i int) bool { return c.idle[i].start > w }) - 1
	if i < 0 || c.idle[i].end <= w || c.idle[i].end > in {
		return 0, false
	}
	return c.idle[i].end, true
}

// running appends (backwards) x's time on cpu over [lo, hi]: user time,
// its system calls, and the softirqs that ran in its place. legAt, when
// not 0, is when x woke the next component on the path: the system call
// under way then is the leg up to that moment (and kernel time after).
func (a *assembler) running(rev []Segment, x *task, cpu int, lo, hi, legAt uint64) []Segment {
	if hi <= lo {
		return rev
	}
	base := SegUser
	if x.kthread {
		base = SegKernel
	}
	var fwd []Segment
	piece := func(s, e uint64, k SegmentKind) {
		if e > s {
			fwd = append(fwd, Segment{Start: s, End: e, Kind: k, Component: x.component, Tid: x.tid, CPU: cpu})
		}
	}
	cur := lo
	for i := sort.Search(len(x.calls), func(i int) bool { return x.calls[i].end > lo }); i < len(x.calls) && x.calls[i].start < hi; i++ {
		c := &x.calls[i]
		s, e := max(c.start, lo), min(c.end, hi)
		piece(cur, s, base)
		if legAt > s && legAt <= e {
			piece(s, legAt, SegLeg)
			piece(legAt, e, SegKernel)
		} else {
			piece(s, e, SegKernel)
		}
		cur = e
	}
	piece(cur, hi, base)
	if c := a.cpus[cpu]; c != nil {
		for i := sort.Search(len(c.softirq), func(i int) bool { return c.softirq[i].end > lo }); i < len(c.softirq) && c.softirq[i].start < hi; i++ {
			fwd = overlay(fwd, c.softirq[i], SegSoftirq)
		}
	}
	// Pieces split at a wake-up inside a softirq join again.
	n := 0
	for i := range fwd {
		if n > 0 && fwd[n-1].Kind == fwd[i].Kind && fwd[n-1].End == fwd[i].Start {
			fwd[n-1].End = fwd[i].End
			continue
		}
		fwd[n] = fwd[i]
		n++
	}
	for i := n - 1; i >= 0; i-- {
		rev = append(rev, fwd[i])
	}
	return rev
}

// overlay gives the part of segs that sp covers kind k, splitting the
// segments it cuts.
func overlay(segs []Segment, sp span, k SegmentKind) []Segment {
	out := make([]Segment, 0, len(segs)+2)
	for _, g := range segs {
		if g.End <= sp.start || g.Start >= sp.end {
			out = append(out, g)
			continue
		}
		if g.Start < sp.start {
			h := g
			h.End = sp.start
			out = append(out, h)
		}
		m := g
		m.Start, m.End, m.Kind = max(g.Start, sp.start), min(g.End, sp.end), k
		out = append(out, m)
		if g.End > sp.end {
			h := g
			h.Start = sp.end
			out = append(out, h)
		}
	}
	return out
}

// charge counts the records taken on the segment's CPU during it and takes
// their calibrated cost off.
func (a *assembler) charge(g *Segment) {
	c := a.cpus[g.CPU]
	if g.CPU < 0 || c == nil {
		return
	}
	lo := sort.Search(len(c.events), func(i int) bool { return c.events[i] >= g.Start })
	hi := sort.Search(len(c.events), func(i int) bool { return c.events[i] >= g.End })
	g.Events = hi - lo
	g.Tracer = min(time.Duration(g.Events)*a.perEvent, time.Duration(g.End-g.Start))
}

// Wake is one wake-up on a request's critical path: from the waker's
// sched_waking to the woken task on CPU, the tracer's own cost taken off.
type Wake struct {
	Latency time.Duration
	// Cross is a wake-up onto another CPU than the waker's; Idle one
	// whose CPU was idle (it ran nothing else while the task waited).
	Cross, Idle bool
}

// Wakes lists the wake-ups on reqs' critical paths: each a SegIdleExit
// and SegRunnable pair (or either alone) of one woken task, with the
// waker's CPU read from the segment before it. A preemption's wait (By
// 0) is not a wake-up, and a wake-up at a request's start has no waker
// segment to place it.
func Wakes(reqs []Request) []Wake {
	var out []Wake
	for i := range reqs {
		segs := reqs[i].Segments
		for j := 1; j < len(segs); j++ {
			s := &segs[j]
			if (s.Kind != SegIdleExit && s.Kind != SegRunnable) || s.By == 0 {
				continue
			}
			w := Wake{Latency: s.Duration(), Cross: segs[j-1].CPU >= 0 && segs[j-1].CPU != s.CPU, Idle: s.Kind == SegIdleExit || s.Behind == 0}
			if s.Kind == SegIdleExit && j+1 < len(segs) && segs[j+1].Kind == SegRunnable && segs[j+1].Tid == s.Tid {
				j++
				w.Latency += segs[j].Duration()
			}
			out = append(out, w)
		}
	}
	return out
}
