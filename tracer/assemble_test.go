package tracer

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hoplat/hoplat/tracer/split"
)

// script builds events for synthetic traces: times are ns offsets from
// each period's base.
type script struct {
	events []Event
	base   uint64
}

func (s *script) ev(dt uint64, k Kind, cpu, tid, tid2 uint32, arg, arg2 uint64) {
	s.events = append(s.events, Event{Time: s.base + dt, Kind: k, CPU: cpu, Tid: tid, Tgid: tid, Tid2: tid2, Tgid2: tid2, Arg: arg, Arg2: arg2})
}
func (s *script) enter(dt uint64, cpu, tid uint32, nr uint64, fd uint64) {
	s.ev(dt, KindSysEnter, cpu, tid, 0, nr, fd)
}
func (s *script) exit(dt uint64, cpu, tid uint32, ret uint64) {
	s.ev(dt, KindSysExit, cpu, tid, 0, ret, 0)
}
func (s *script) wake(dt uint64, cpu, waker, woken uint32) {
	s.ev(dt, KindWaking, cpu, waker, woken, 0, 0)
}
func (s *script) sw(dt uint64, cpu, prev, next uint32, state uint64) {
	s.ev(dt, KindSwitch, cpu, prev, next, state, 0)
}

const (
	client = 100
	relay  = 200
	server = 300
)

var components = map[int]string{client: "client", relay: "relay", server: "server"}

// directPacked is a client and a server on CPU 0, TCP on loopback: the
// client's send wakes the server from its softirq, the server runs once the
// client blocks in its read, and so back. One period is one request.
func directPacked(periods int) []Event {
	s := &script{}
	for p := range periods {
		s.base = uint64(p) * 3100
		s.enter(1000, 0, client, sysWrite, 3)
		s.ev(1500, KindSoftirqEntry, 0, client, 0, 3, 0)
		s.wake(2000, 0, client, server)
		s.ev(2200, KindSoftirqExit, 0, client, 0, 3, 0)
		s.exit(2500, 0, client, 64)
		s.enter(2600, 0, client, sysRead, 3)
		s.sw(2800, 0, client, server, 1)
		s.exit(3000, 0, server, 64)
		s.enter(3100, 0, server, sysWrite, 5)
		s.wake(3400, 0, server, client)
		s.exit(3600, 0, server, 64)
		s.enter(3700, 0, server, sysRead, 5)
		s.sw(3900, 0, server, client, 1)
		s.exit(4000, 0, client, 64)
	}
	return s.events
}

// relaySpread is client on CPU 0, relay on CPU 1 (idle between messages),
// server on CPU 0, UNIX sockets (no softirq).
func relaySpread(periods int) []Event {
	s := &script{}
	for p := range periods {
		s.base = uint64(p) * 10000
		s.enter(1000, 0, client, sysWrite, 3)
		s.wake(1400, 0, client, relay) // CPU 1 idle since the last period
		s.exit(1500, 0, client, 64)
		s.enter(1600, 0, client, sysRead, 3)
		s.sw(1700, 0, client, 0, 1)
		s.ev(2000, KindIdle, 1, 0, 0, IdleExit, 1)
		s.sw(2300, 1, 0, relay, 0)
		s.exit(2400, 1, relay, 1)     // epoll_wait
		s.enter(2500, 1, relay, 0, 7) // read
		s.exit(2700, 1, relay, 64)
		s.enter(3000, 1, relay, sysWrite, 8)
		s.wake(3300, 1, relay, server) // CPU 0 idle, polling: no idle event
		s.exit(3500, 1, relay, 64)
		s.enter(3600, 1, relay, 232, 4) // epoll_wait
		s.sw(3700, 1, relay, 0, 1)
		s.ev(3800, KindIdle, 1, 0, 0, 1, 1)
		s.sw(3900, 0, 0, server, 0)
		s.exit(4000, 0, server, 64)
		s.enter(4100, 0, server, sysWrite, 5)
		s.wake(4400, 0, server, relay)
		s.exit(4500, 0, server, 64)
		s.enter(4600, 0, server, sysRead, 5)
		s.sw(4700, 0, server, 0, 1)
		s.ev(5000, KindIdle, 1, 0, 0, IdleExit, 1)
		s.sw(5100, 1, 0, relay, 0)
		s.exit(5200, 1, relay, 1)
		s.enter(5300, 1, relay, sysRead, 8)
		s.exit(5400, 1, relay, 64)
		s.enter(5500, 1, relay, sysWrite, 7)
		s.wake(5800, 1, relay, client)
		s.exit(6000, 1, relay, 64)
		s.enter(6100, 1, relay, 232, 4)
		s.sw(6200, 1, relay, 0, 1)
		s.ev(6300, KindIdle, 1, 0, 0, 1, 1)
		s.sw(6500, 0, 0, client, 0)
		s.exit(6600, 0, client, 64)
	}
	return s.events
}

// relayPacked is client, relay and server on CPU 0, TCP: the relay's
// write wakes the server, which preempts the relay and answers while the
// relay is still runnable, so the relay's next epoll_wait returns at once
// and the server's answer reaches it without a wake-up.
func relayPacked(periods int) []Event {
	s := &script{}
	for p := range periods {
		s.base = uint64(p) * 5000
		s.enter(1000, 0, client, sysWrite, 3)
		s.ev(1200, KindSoftirqEntry, 0, client, 0, 3, 0)
		s.wake(1300, 0, client, relay)
		s.ev(1400, KindSoftirqExit, 0, client, 0, 3, 0)
		s.exit(1500, 0, client, 64)
		s.enter(1600, 0, client, sysRead, 3)
		s.sw(1700, 0, client, relay, 1)
		s.exit(1800, 0, relay, 1)
		s.enter(1900, 0, relay, sysRead, 7)
		s.exit(2000, 0, relay, 64)
		s.enter(2100, 0, relay, sysWrite, 8)
		s.ev(2200, KindSoftirqEntry, 0, relay, 0, 3, 0)
		s.wake(2300, 0, relay, server)
		s.ev(2400, KindSoftirqExit, 0, relay, 0, 3, 0)
		s.ev(2500, KindSwitch, 0, relay, server, 0, 1) // preempted
		s.exit(2600, 0, server, 64)
		s.enter(2700, 0, server, sysWrite, 5)
		s.ev(2800, KindSoftirqEntry, 0, server, 0, 3, 0)
		s.ev(2900, KindSoftirqExit, 0, server, 0, 3, 0)
		s.exit(3000, 0, server, 64)
		s.enter(3100, 0, server, sysRead, 5)
		s.sw(3200, 0, server, relay, 1)
		s.exit(3300, 0, relay, 64)
		s.enter(3400, 0, relay, 232, 4)
		s.exit(3500, 0, relay, 1)
		s.enter(3600, 0, relay, sysRead, 8)
		s.exit(3700, 0, relay, 64)
		s.enter(3800, 0, relay, sysWrite, 7)
		s.ev(3900, KindSoftirqEntry, 0, relay, 0, 3, 0)
		s.wake(4000, 0, relay, client)
		s.ev(4100, KindSoftirqExit, 0, relay, 0, 3, 0)
		s.exit(4200, 0, relay, 64)
		s.enter(4300, 0, relay, 232, 4)
		s.sw(4400, 0, relay, client, 1)
		s.exit(4500, 0, client, 64)
	}
	return s.events
}

// relaySpreadPreempted is relaySpread with a client that computes after
// its send: the server, woken from CPU 1 by the relay's forward, preempts
// it on CPU 0, and the answer reaches the client's socket while it
// computes, so its read returns without a wait.
func relaySpreadPreempted(periods int) []Event {
	s := &script{}
	for p := range periods {
		s.base = uint64(p) * 10000
		s.enter(1000, 0, client, sysWrite, 3)
		s.wake(1400, 0, client, relay)
		s.exit(1500, 0, client, 64)
		s.ev(2000, KindIdle, 1, 0, 0, IdleExit, 1)
		s.sw(2300, 1, 0, relay, 0)
		s.exit(2400, 1, relay, 1)
		s.enter(2500, 1, relay, 0, 7)
		s.exit(2700, 1, relay, 64)
		s.enter(3000, 1, relay, sysWrite, 8)
		s.wake(3300, 1, relay, server)
		s.sw(3400, 0, client, server, 0) // preempted, still runnable
		s.exit(3500, 1, relay, 64)
		s.exit(3500, 0, server, 64)
		s.enter(3600, 1, relay, 232, 4)
		s.enter(3600, 0, server, sysWrite, 5)
		s.sw(3700, 1, relay, 0, 1)
		s.ev(3800, KindIdle, 1, 0, 0, 1, 1)
		s.wake(3900, 0, server, relay)
		s.exit(4000, 0, server, 64)
		s.enter(4100, 0, server, sysRead, 5)
		s.sw(4200, 0, server, client, 1)
		s.ev(4300, KindIdle, 1, 0, 0, IdleExit, 1)
		s.sw(4400, 1, 0, relay, 0)
		s.exit(4500, 1, relay, 1)
		s.enter(4600, 1, relay, sysRead, 8)
		s.exit(4700, 1, relay, 64)
		s.enter(4800, 1, relay, sysWrite, 7)
		s.exit(5000, 1, relay, 64)
		s.enter(5100, 1, relay, 232, 4)
		s.sw(5200, 1, relay, 0, 1)
		s.ev(5300, KindIdle, 1, 0, 0, 1, 1)
		s.enter(5400, 0, client, sysRead, 3)
		s.exit(5500, 0, client, 64)
	}
	return s.events
}

type seg struct {
	kind SegmentKind
	comp string
	ns   uint64
}

// spreadForward is the request's way out on a spread relay path: the
// client's send, the relay's wake-up on its idle CPU, its read and the
// write that wakes the server.
var spreadForward = []seg{
	{SegLeg, "client", 400},
	{SegIdleExit, "relay", 600}, {SegRunnable, "relay", 300},
	{SegKernel, "relay", 100}, {SegUser, "relay", 100}, {SegKernel, "relay", 200},
	{SegUser, "relay", 300}, {SegLeg, "relay", 300},
}

// assembleCase is a synthetic trace of five periods and the segments and
// split every whole request in it must assemble to.
type assembleCase struct {
	name   string
	events []Event
	want   []seg
	split  split.Split
}

func TestAssemble(t *testing.T) {
	tests := []assembleCase{
		{
			name:   "direct packed",
			events: directPacked(5),
			want: []seg{
				{SegLeg, "client", 500}, {SegSoftirq, "client", 500},
				{SegRunnable, "server", 800},
				{SegKernel, "server", 200}, {SegUser, "server", 100}, {SegLeg, "server", 300},
				{SegRunnable, "client", 500}, {SegKernel, "client", 100},
			},
			split: split.Split{Runnable: 1.3, Softirq: 0.5, Legs: 0.8, Endpoints: 0.4},
		},
		{
			name:   "relay spread",
			events: relaySpread(5),
			want: append(slices.Clone(spreadForward),
				seg{SegRunnable, "server", 600},
				seg{SegKernel, "server", 100}, seg{SegUser, "server", 100}, seg{SegLeg, "server", 300},
				seg{SegIdleExit, "relay", 600}, seg{SegRunnable, "relay", 100},
				seg{SegKernel, "relay", 100}, seg{SegUser, "relay", 100}, seg{SegKernel, "relay", 100},
				seg{SegUser, "relay", 100}, seg{SegLeg, "relay", 300},
				seg{SegRunnable, "client", 700}, seg{SegKernel, "client", 100},
			),
			// Both idle exits are the relay's CPU's.
			split: split.Split{RelayUser: 0.6, RelayKernel: 0.5, Runnable: 1.7, IdleExit: 1.2, IdleExitRelay: 1.2, Legs: 1.3, Endpoints: 0.3},
		},
	}
	tests = append(tests, assembleCase{
		// The server's time while the relay waits preempted is the
		// server's, not the relay's wait, and the relay's write that
		// woke it is a leg up to the wake-up.
		name:   "relay packed, the server preempts the relay",
		events: relayPacked(5),
		want: []seg{
			{SegLeg, "client", 200}, {SegSoftirq, "client", 100},
			{SegRunnable, "relay", 400},
			{SegKernel, "relay", 100}, {SegUser, "relay", 100}, {SegKernel, "relay", 100}, {SegUser, "relay", 100},
			{SegLeg, "relay", 100}, {SegSoftirq, "relay", 200}, {SegKernel, "relay", 100},
			{SegKernel, "server", 100}, {SegUser, "server", 100}, {SegKernel, "server", 100}, {SegSoftirq, "server", 100},
			{SegKernel, "server", 100}, {SegUser, "server", 100}, {SegKernel, "server", 100},
			{SegKernel, "relay", 100}, {SegUser, "relay", 100}, {SegKernel, "relay", 100}, {SegUser, "relay", 100},
			{SegKernel, "relay", 100}, {SegUser, "relay", 100}, {SegLeg, "relay", 100}, {SegSoftirq, "relay", 100},
			{SegRunnable, "client", 400}, {SegKernel, "client", 100},
		},
		split: split.Split{RelayUser: 0.5, RelayKernel: 0.6, RelaySoftirq: 0.3, Runnable: 0.8, Softirq: 0.2, Legs: 0.4, Endpoints: 0.7},
	})
	tests = append(tests, assembleCase{
		// The client's wait behind the server is the request's path when
		// the relay's forward from another CPU woke the server: the
		// walk follows the server back to the relay, and the client's
		// own time before the preemption, beside that chain, is not on
		// the path.
		name:   "relay spread, the server preempts the client",
		events: relaySpreadPreempted(5),
		want: append(slices.Clone(spreadForward),
			seg{SegRunnable, "server", 100},
			seg{SegKernel, "server", 100}, seg{SegUser, "server", 100}, seg{SegKernel, "server", 400},
			seg{SegUser, "server", 100}, seg{SegKernel, "server", 100},
			seg{SegUser, "client", 1200}, seg{SegKernel, "client", 100},
		),
		split: split.Split{RelayUser: 0.4, RelayKernel: 0.3, Runnable: 0.4, IdleExit: 0.6, IdleExitRelay: 0.6, Legs: 0.7, Endpoints: 2.1},
	})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			reqs := Assemble(Config{Components: components}, tc.events, 0)
			if len(reqs) != 3 {
				t.Fatalf("%d requests, want 3 (5 periods less the first and the last)", len(reqs))
			}
			for _, r := range reqs {
				var got []seg
				for _, g := range r.Segments {
					got = append(got, seg{g.Kind, g.Component, g.End - g.Start})
				}
				if !equalSegs(got, tc.want) {
					t.Errorf("request at %d:\n got %v\nwant %v", r.Start, got, tc.want)
				}
				if id := r.IdentityPct(); id != 0 {
					t.Errorf("identity %.2f%%, want 0", id)
				}
				sp := r.Split()
				if !closeSplit(sp, tc.split) {
					t.Errorf("split %+v, want %+v", sp, tc.split)
				}
				if math.Abs(sp.Total()-float64(r.RTT())/1e3) > 1e-9 {
					t.Errorf("split total %.3f µs, round trip %v", sp.Total(), r.RTT())
				}
			}
		})
	}
}

func equalSegs(a, b []seg) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func closeSplit(a, b split.Split) bool {
	av := []float64{a.RelayUser, a.RelayKernel, a.RelaySoftirq, a.Runnable, a.IdleExit, a.IdleExitRelay, a.Softirq, a.Legs, a.Endpoints, a.Other}
	bv := []float64{b.RelayUser, b.RelayKernel, b.RelaySoftirq, b.Runnable, b.IdleExit, b.IdleExitRelay, b.Softirq, b.Legs, b.Endpoints, b.Other}
	for i := range av {
		if math.Abs(av[i]-bv[i]) > 1e-9 {
			return false
		}
	}
	return true
}

// A per-event cost comes off the segments that hold the records, and the
// identity still holds with the cost added back.
func TestAssembleCharges(t *testing.T) {
	reqs := Assemble(Config{Components: components}, directPacked(5), 10*time.Nanosecond)
	r := reqs[1]
	var events int
	for _, g := range r.Segments {
		events += g.Events
		if g.Tracer != time.Duration(g.Events)*10 {
			t.Errorf("%v segment: %d events, %v taken off", g.Kind, g.Events, g.Tracer)
		}
	}
	if events == 0 {
		t.Fatal("no events charged")
	}
	if r.Sum()+r.Tracer() != r.RTT() || r.Tracer() != time.Duration(events)*10 {
		t.Errorf("sum %v + tracer %v != rtt %v", r.Sum(), r.Tracer(), r.RTT())
	}
}

// A waker the trace does not follow ends the walk; the rest is other, and
// the segments still partition the round trip.
func TestAssembleBrokenChain(t *testing.T) {
	ev := directPacked(5)
	reqs := Assemble(Config{Components: map[int]string{client: "client"}}, ev, 0)
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	last := r.Segments[len(r.Segments)-1]
	first := r.Segments[0]
	if first.Kind != SegOther || last.Kind != SegKernel || r.IdentityPct() != 0 {
		t.Errorf("segments %+v", r.Segments)
	}
	if c := r.CoveragePct(); c >= 100 || c <= 0 {
		t.Errorf("coverage %.1f%%", c)
	}
}

func TestQuantile(t *testing.T) {
	var reqs []Request
	for _, d := range []uint64{50, 10, 40, 20, 30} {
		reqs = append(reqs, Request{Start: 100, End: 100 + d})
	}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0.5, 30}, {0.99, 50}, {0, 10}, {0.2, 10}, {0.21, 20}} {
		r, ok := Quantile(reqs, tc.q)
		if !ok || r.RTT() != tc.want {
			t.Errorf("Quantile(%v) = %v, want %v", tc.q, r.RTT(), tc.want)
		}
	}
	if _, ok := Quantile(nil, 0.5); ok {
		t.Error("Quantile of no requests reported one")
	}
}

func TestLongestAndComponent(t *testing.T) {
	ev := relaySpread(5)
	tr := &Trace{Config: Config{Components: components}, Events: ev}
	reqs := tr.Requests()
	g, ok := reqs[0].Longest()
	if !ok || g.Kind != SegRunnable || g.Component != "client" || g.Duration() != 700 {
		t.Errorf("longest %+v", g)
	}
	if c := tr.Component(g.By); c != "relay" {
		t.Errorf("woken by %d of component %q, want relay", g.By, c)
	}
	if c := tr.Component(0); c != "" {
		t.Errorf("idle task's component %q", c)
	}
	if _, ok := (&Request{}).Longest(); ok {
		t.Error("a request without segments has a longest one")
	}
}

func TestWakes(t *testing.T) {
	tr := &Trace{Config: Config{Components: components}, Events: relaySpread(5)}
	reqs := tr.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	// Each period: client→relay 900 ns (600 leaving idle), relay→server
	// 600, server→relay 700, relay→client 700, every one onto the other,
	// idle CPU.
	want := []time.Duration{900, 600, 700, 700}
	got := Wakes(reqs[:1])
	if len(got) != len(want) {
		t.Fatalf("%d wake-ups %+v, want %d", len(got), got, len(want))
	}
	for i, w := range got {
		if w.Latency != want[i] || !w.Cross || !w.Idle {
			t.Errorf("wake-up %d: %+v, want %v cross idle", i, w, want[i])
		}
	}
	packed := (&Trace{Config: Config{Components: components}, Events: relayPacked(5)}).Requests()
	for _, w := range Wakes(packed) {
		if w.Cross {
			t.Errorf("a wake-up on one CPU said cross: %+v", w)
		}
	}
}

// A relay thread asleep in a timed wait of its own (a Go runtime's
// monitor polling the network between sleeps) is woken by the idle task's
// timer interrupt, not by the sender: its wait is its own system call, so
// the request is explained, not other.
func TestAssembleTimerWake(t *testing.T) {
	s := &script{}
	for p := range 5 {
		s.base = uint64(p) * 10000
		s.enter(1000, 0, client, sysWrite, 3) // queues the message, wakes no one
		s.exit(1500, 0, client, 64)
		s.enter(1600, 0, client, sysRead, 3)
		s.sw(1700, 0, client, 0, 1)
		s.wake(3000, 1, 0, relay) // the relay's sleep times out
		s.exit(3050, 1, relay, 0)
		s.sw(3100, 1, 0, relay, 0)
		s.enter(3200, 1, relay, sysRead, 7)
		s.exit(3300, 1, relay, 64)
		s.enter(3400, 1, relay, sysWrite, 7)
		s.wake(3500, 1, relay, client)
		s.exit(3600, 1, relay, 64)
		s.enter(3650, 1, relay, 35, 0) // nanosleep
		s.sw(3700, 1, relay, 0, 1)
		s.sw(3800, 0, 0, client, 0)
		s.exit(3900, 0, client, 64)
	}
	reqs := Assemble(Config{Components: components}, s.events, 0)
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[1]
	if c := r.CoveragePct(); c != 100 || r.IdentityPct() != 0 {
		t.Errorf("coverage %.1f%%, identity %.1f%%: %+v", c, r.IdentityPct(), r.Segments)
	}
	first := r.Segments[0]
	if first.Kind != SegKernel || first.Component != "relay" || first.End-first.Start != 2000 {
		t.Errorf("first segment %+v, want the relay's 2 µs wait as its kernel time", first)
	}
	// A relay whose system calls are not recorded has the wait as user
	// time, as the rest of its time on the path.
	reqs = Assemble(Config{Components: components, WithoutSyscalls: []string{"relay"}}, s.events, 0)
	if g := reqs[1].Segments[0]; g.Kind != SegUser || g.Component != "relay" {
		t.Errorf("without the relay's system calls, first segment %+v", g)
	}
	// Woken by a task the trace does not follow, the chain still breaks.
	for i := range s.events {
		if e := &s.events[i]; e.Kind == KindWaking && e.Tid == 0 {
			e.Tid, e.Tgid = 999, 999
		}
	}
	reqs = Assemble(Config{Components: components}, s.events, 0)
	if c := reqs[1].CoveragePct(); c >= 100 {
		t.Errorf("woken by an unfollowed task: coverage %.1f%%", c)
	}
}

// A UNIX stream packed on CPU 0: the client's read, freeing the server's
// send buffer, wakes the server (asleep in its own read on the socket's
// one wait queue), which preempts the client on its way out of the read,
// finds nothing and sleeps again. The client times its round trip to its
// own next instruction, so the request ends when it is back on CPU, what
// ran meanwhile in it; a client that leaves the read and makes its next
// call on CPU ends at the read's return.
func TestAssembleClientPreemptedLeavingTheRead(t *testing.T) {
	period := func(s *script, preempted bool) {
		s.enter(1000, 0, client, sysWrite, 3)
		s.wake(1400, 0, client, server)
		s.exit(1500, 0, client, 64)
		s.enter(1600, 0, client, sysRead, 3)
		s.sw(1700, 0, client, server, 1)
		s.exit(1800, 0, server, 64)
		s.enter(1900, 0, server, sysWrite, 5)
		s.wake(2200, 0, server, client)
		s.exit(2300, 0, server, 64)
		s.enter(2400, 0, server, sysRead, 5)
		s.sw(2500, 0, server, client, 1)
		if preempted {
			s.wake(2550, 0, client, server) // the spurious write-space wake-up
		}
		s.exit(2600, 0, client, 64)
		if preempted {
			s.sw(2650, 0, client, server, 0) // preempted, still runnable
			s.sw(6650, 0, server, client, 1) // the server found nothing
		}
	}
	for _, preempted := range []bool{false, true} {
		s := &script{}
		for p := range 5 {
			s.base = uint64(p) * 10000
			period(s, preempted)
		}
		reqs := Assemble(Config{Components: components}, s.events, 0)
		if len(reqs) != 3 {
			t.Fatalf("preempted %v: %d requests", preempted, len(reqs))
		}
		r := reqs[1]
		want := uint64(1600) // send's entry to the read's return
		if preempted {
			want = 5651 // to a nanosecond into the client's run after the wait
		}
		if got := r.End - r.Start; got != want || r.IdentityPct() != 0 || r.CoveragePct() != 100 {
			t.Errorf("preempted %v: round trip %d ns, want %d; identity %.1f%%, coverage %.1f%%: %+v",
				preempted, got, want, r.IdentityPct(), r.CoveragePct(), r.Segments)
		}
		if !preempted {
			continue
		}
		// What ran while the client waited is the server's own time in
		// its fruitless read (displaced), the last stretch before the
		// client is back.
		n := len(r.Segments)
		if g := r.Segments[n-2]; g.Component != "server" || g.Kind != SegKernel || g.End-g.Start != 4000 {
			t.Errorf("the wait: %+v, want the server's 4000 ns in its read: %+v", g, r.Segments)
		}
	}
}

// Packed, charged to whoever held the CPU: the relay's waits runnable
// behind the server and the client's behind the relay's tail are gone, the
// relay's write is its own kernel time (no leg), and the relay's parts are
// exactly its time on CPU in the request (1700-2500 and 3200-4400).
func TestAssembleChargeHolder(t *testing.T) {
	cfg := Config{Components: components, ChargeHolder: true}
	reqs := Assemble(cfg, relayPacked(5), 0)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	want := split.Split{RelayUser: 0.6, RelayKernel: 1.0, RelaySoftirq: 0.4, Softirq: 0.3, Legs: 0.2, Endpoints: 1.0}
	for _, r := range reqs {
		sp := r.Split()
		if !closeSplit(sp, want) {
			t.Errorf("request at %d: split %s, want %s", r.Start, sp.Fields(), want.Fields())
		}
		if relay := sp.Relay(); math.Abs(relay-2.0) > 1e-9 {
			t.Errorf("relay parts %.3f µs, want its 2.0 µs on CPU", relay)
		}
		if id := r.IdentityPct(); id != 0 {
			t.Errorf("identity %.2f%%, want 0", id)
		}
	}
	// The critical-path view of the same events gives the relay less: its
	// forward is a leg, and the client's wait behind its tail runnable.
	crit := Assemble(Config{Components: components}, relayPacked(5), 0)
	if got := crit[0].Split().Relay(); got >= 2.0 {
		t.Errorf("critical path: relay parts %.1f µs, want less than its 2.0 µs on CPU", got)
	}
}

// A stretch of a task the trace does not follow is the request runnable
// behind it, and an idle stretch is the CPU leaving idle.
func TestAssembleChargeHolderForeign(t *testing.T) {
	const other = 99
	s := &script{}
	for p := range 5 {
		s.base = uint64(p) * 5000
		s.enter(1000, 0, client, sysWrite, 3)
		s.wake(1100, 0, client, server)
		s.exit(1200, 0, client, 64)
		s.enter(1300, 0, client, sysRead, 3)
		s.sw(1400, 0, client, other, 1)
		s.sw(1900, 0, other, 0, 1)
		s.sw(2200, 0, 0, server, 1)
		s.exit(2250, 0, server, 64)
		s.enter(2300, 0, server, sysWrite, 5)
		s.wake(2400, 0, server, client)
		s.exit(2450, 0, server, 64)
		s.enter(2480, 0, server, sysRead, 5)
		s.sw(2500, 0, server, client, 1)
		s.exit(2600, 0, client, 64)
	}
	reqs := Assemble(Config{Components: components, ChargeHolder: true}, s.events, 0)
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	want := split.Split{Runnable: 0.5, IdleExit: 0.3, Legs: 0.2, Endpoints: 0.6}
	for _, r := range reqs {
		if sp := r.Split(); !closeSplit(sp, want) {
			t.Errorf("split %s, want %s", sp.Fields(), want.Fields())
		}
		for _, g := range r.Segments {
			if g.Kind == SegRunnable && g.Behind != other {
				t.Errorf("runnable behind %d, want %d", g.Behind, other)
			}
		}
	}
}

// A request's idle exits are counted whole in IdleExit, and those of a
// CPU leaving idle to run a woken relay again in IdleExitRelay: what a
// relay polling on a CPU of its own removes.
func TestSplitIdleExitRelay(t *testing.T) {
	r := Request{Segments: []Segment{
		{Start: 0, End: 1000, Kind: SegUser, Component: "client"},
		{Start: 1000, End: 4000, Kind: SegIdleExit, Component: "relay", CPU: 1},
		{Start: 4000, End: 5000, Kind: SegUser, Component: "relay", CPU: 1},
		{Start: 5000, End: 7000, Kind: SegIdleExit, Component: "server", CPU: 0},
		{Start: 7000, End: 8000, Kind: SegUser, Component: "server", CPU: 0},
	}}
	want := split.Split{Endpoints: 2, RelayUser: 1, IdleExit: 5, IdleExitRelay: 3}
	if sp := r.Split(); !closeSplit(sp, want) {
		t.Errorf("split %+v, want %+v", sp, want)
	}
	if got := r.Split().Total(); math.Abs(got-8) > 1e-9 {
		t.Errorf("total %.1f µs, want the request's 8: IdleExitRelay is a part of IdleExit", got)
	}
}
