package attach

import (
	"fmt"
	"testing"
	"time"

	"github.com/hoplat/hoplat/tracer"
)

// ports packs a socket record's port pair as the programs load it.
func ports(local, remote uint16) uint32 {
	return uint32(local)<<16 | uint32(remote>>8|remote<<8)
}

const (
	proxyTid = 10
	skClient = 0xa000 // accepted: local port 8080
	skServer = 0xb000 // connected to the server's 3306
)

// exchange is one request and its response through a proxy thread that
// sleeps between them: woken by the request's arrival, runnable until
// switched in, interrupted by one softirq, then it forwards the response
// while on CPU.
func exchange() []tracer.Event {
	return []tracer.Event{
		{Time: 1000, Kind: tracer.KindDataReady, Arg: skClient, Tid2: 1100, Tgid2: ports(8080, 40000), Tid: 7},
		{Time: 1000, Kind: tracer.KindWaking, Tid: 7, Tid2: proxyTid},
		{Time: 1500, Kind: tracer.KindSwitch, Tid: 5, Tid2: proxyTid, Arg: 1},
		{Time: 2000, Kind: tracer.KindRecv, Tid: proxyTid, Arg: skClient, Arg2: 100, Tid2: 1100, Tgid2: ports(8080, 40000)},
		{Time: 2500, Kind: tracer.KindSoftirqEntry, Tid: proxyTid, CPU: 0},
		{Time: 2700, Kind: tracer.KindSoftirqExit, Tid: proxyTid, CPU: 0},
		{Time: 5000, Kind: tracer.KindSend, Tid: proxyTid, Tgid: 100, Arg: skServer, Arg2: 60, Tid2: 9060, Tgid2: ports(50000, 3306)},
		{Time: 5200, Kind: tracer.KindSend, Tid: proxyTid, Tgid: 100, Arg: skServer, Arg2: 40, Tid2: 9100, Tgid2: ports(50000, 3306)},
		{Time: 6000, Kind: tracer.KindDataReady, Arg: skServer, Tid2: 5100, Tgid2: ports(50000, 3306), Tid: 8},
		{Time: 7000, Kind: tracer.KindRecv, Tid: proxyTid, Arg: skServer, Arg2: 50, Tid2: 5100, Tgid2: ports(50000, 3306)},
		{Time: 8000, Kind: tracer.KindSend, Tid: proxyTid, Tgid: 100, Arg: skClient, Arg2: 50, Tid2: 2050, Tgid2: ports(8080, 40000)},
		{Time: 9000, Kind: tracer.KindFork, Tid: proxyTid, Tgid: 100, Tid2: 200, Tgid2: 200},
		{Time: 9100, Kind: tracer.KindFork, Tid: proxyTid, Tgid: 100, Tid2: 201, Tgid2: 100},
	}
}

func TestAnalyze(t *testing.T) {
	events := exchange()
	// Out of order, as the CPUs' buffers are read.
	events[0], events[len(events)-1] = events[len(events)-1], events[0]
	var got []Chunk
	w := Analyze(events, func(p, _ uint16) bool { return p == 8080 }, func(c Chunk) { got = append(got, c) })
	want := []Chunk{
		{Direction: ToUpstream, Arrival: 1000, Sent: 5200, Bytes: 100, Tid: proxyTid, Pid: 100, Inbound: skClient,
			Split: Split{Runnable: 500, OnCPU: 3500, Softirq: 200}},
		{Direction: ToClient, Arrival: 6000, Sent: 8000, Bytes: 50, Tid: proxyTid, Pid: 100, Inbound: skServer,
			Split: Split{OnCPU: 2000}},
	}
	if len(got) != len(want) {
		t.Fatalf("chunks %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("chunk %d: %+v, want %+v", i, got[i], want[i])
		}
		if got[i].Split.Sum() != got[i].Residence() {
			t.Errorf("chunk %d: split sums to %v, residence %v", i, got[i].Split.Sum(), got[i].Residence())
		}
	}
	if len(w.Forks) != 1 || w.Forks[0] != 200 {
		t.Errorf("forks %v, want [200] (201 is a thread)", w.Forks)
	}
	if len(w.Threads) != 1 || w.Threads[0] != proxyTid {
		t.Errorf("threads %v, want [%d]", w.Threads, proxyTid)
	}
}

// TestAnalyzeUnmatched: an arrival read before the window, and bytes sent
// back to the socket they came from, make no chunk.
func TestAnalyzeUnmatched(t *testing.T) {
	events := []tracer.Event{
		{Time: 1000, Kind: tracer.KindDataReady, Arg: skClient, Tid2: 1000},
		{Time: 2000, Kind: tracer.KindRecv, Tid: proxyTid, Arg: skClient, Arg2: 100, Tid2: 1100},
		{Time: 2500, Kind: tracer.KindDataReady, Arg: skClient, Tid2: 1200},
		{Time: 2600, Kind: tracer.KindRecv, Tid: proxyTid, Arg: skClient, Arg2: 100, Tid2: 1200},
		{Time: 3000, Kind: tracer.KindSend, Tid: proxyTid, Tgid: 100, Arg: skClient, Arg2: 100},
	}
	n := 0
	Analyze(events, func(_, _ uint16) bool { return true }, func(Chunk) { n++ })
	if n != 0 {
		t.Errorf("%d chunks, want none", n)
	}
}

func TestReportSplitSums(t *testing.T) {
	s := newSummary()
	for i := range 100 {
		d := time.Duration(1000 + 10*i)
		s.add(Chunk{Arrival: 0, Sent: uint64(d), Bytes: 10, Split: Split{Blocked: d / 4, OnCPU: d - d/4}})
	}
	r := s.report(ToUpstream)
	if r.Chunks != 100 || r.Bytes != 1000 {
		t.Errorf("chunks %d bytes %d", r.Chunks, r.Bytes)
	}
	if diff := r.SplitUs.Sum() - r.ResidenceUs.Mean; diff > 0.02 || diff < -0.02 {
		t.Errorf("split sums to %v, mean %v", r.SplitUs.Sum(), r.ResidenceUs.Mean)
	}
}

// The connection of the tests below: a client's socket the proxy accepted
// and the one it connected to the server.
var (
	clientPorts = ports(8080, 40000)
	serverPorts = ports(50000, 3306)
)

func arrive(t uint64, sk uint64, end uint32, p uint32) tracer.Event {
	return tracer.Event{Time: t, Kind: tracer.KindDataReady, Arg: sk, Tid2: end, Tgid2: p, Tid: 7}
}

func recv(t uint64, tid uint32, sk uint64, n int, end uint32, p uint32) tracer.Event {
	return tracer.Event{Time: t, Kind: tracer.KindRecv, Tid: tid, Arg: sk, Arg2: uint64(int64(n)), Tid2: end, Tgid2: p}
}

func send(t uint64, tid uint32, sk uint64, n int, end uint32, p uint32) tracer.Event {
	return tracer.Event{Time: t, Kind: tracer.KindSend, Tid: tid, Arg: sk, Arg2: uint64(int64(n)), Tid2: end, Tgid2: p}
}

// analyze runs Analyze with the client's port 8080 the accepted one.
func analyze(events []tracer.Event) []Chunk {
	var got []Chunk
	Analyze(events, func(local, _ uint16) bool { return local == 8080 }, func(c Chunk) { got = append(got, c) })
	return got
}

// residences are the chunks' residences and directions, for messages.
func residences(cs []Chunk) []string {
	var s []string
	for _, c := range cs {
		s = append(s, fmt.Sprintf("%v %v @%d", c.Direction, c.Residence(), c.Arrival))
	}
	return s
}

// round is one request of 64 bytes and its response of 64 through a proxy
// thread, from time t, its bytes ending at offset 64*(k+1) of each stream:
// each chunk stays 2 µs in the proxy, the round takes 10.
func round(k int, tid uint32, client, server uint64, sends bool) []tracer.Event {
	t := uint64(100_000 + 10_000*k)
	end := uint32(64 * (k + 1))
	ev := []tracer.Event{
		arrive(t, client, 1000+end, clientPorts),
		recv(t+1000, tid, client, 64, 1000+end, clientPorts),
		send(t+2000, tid, server, 64, 5000+end, serverPorts),
		arrive(t+5000, server, 9000+end, serverPorts),
		recv(t+6000, tid, server, 64, 9000+end, serverPorts),
		send(t+7000, tid, client, 64, 3000+end, clientPorts),
	}
	if !sends { // as at a window's start: reads whose sends went unseen
		ev = []tracer.Event{ev[1], ev[4]}
	}
	return ev
}

// TestAnalyzeReadsWithoutSends: reads whose sends went unrecorded (the
// first rounds of a window, before the send hook is live; a record lost)
// must not make the later sends pair with the reads before theirs. They
// did, through a queue of reads per thread, and every chunk then stayed a
// round trip too long.
func TestAnalyzeReadsWithoutSends(t *testing.T) {
	var events []tracer.Event
	for k := range 6 {
		events = append(events, round(k, proxyTid, skClient, skServer, k >= 2)...)
	}
	got := analyze(events)
	if len(got) != 8 {
		t.Fatalf("%d chunks %v, want 8 (rounds 2 to 5, both ways)", len(got), residences(got))
	}
	for i, c := range got {
		if c.Residence() != 2000 || c.Bytes != 64 {
			t.Errorf("chunk %d: residence %v, %d bytes, want 2µs, 64: %v", i, c.Residence(), c.Bytes, residences(got))
		}
	}
}

// TestAnalyzeOffsets: a send forwards the bytes of the receives whose
// ends it reaches, however the proxy cuts them.
func TestAnalyzeOffsets(t *testing.T) {
	const c, s = skClient, skServer
	cp, sp := clientPorts, serverPorts
	for _, tc := range []struct {
		name   string
		events []tracer.Event
		want   []time.Duration // to_upstream residences
	}{{
		// An epoll engine reads until EAGAIN (its last read, 0 bytes,
		// and a -11 make no segment), then sends what it read at once.
		name: "reads before a send",
		events: []tracer.Event{
			arrive(1000, c, 1030, cp), arrive(1200, c, 1064, cp),
			recv(2000, proxyTid, c, 30, 1030, cp), recv(2100, proxyTid, c, 34, 1064, cp),
			recv(2150, proxyTid, c, 0, 1064, cp), recv(2160, proxyTid, c, -11, 1064, cp),
			send(3000, proxyTid, s, 64, 5064, sp),
		},
		want: []time.Duration{2000, 1800},
	}, {
		name: "partial sends",
		events: []tracer.Event{
			arrive(1000, c, 1100, cp), recv(2000, proxyTid, c, 100, 1100, cp),
			send(3000, proxyTid, s, 60, 5060, sp), send(4000, proxyTid, s, 40, 5100, sp),
			arrive(5000, c, 1200, cp), recv(5100, proxyTid, c, 100, 1200, cp),
			send(6000, proxyTid, s, 50, 5150, sp), send(6500, proxyTid, s, 50, 5200, sp),
		},
		want: []time.Duration{3000, 1500},
	}, {
		// A send of two receives, and a receive cut in two sends.
		name: "a send of several receives",
		events: []tracer.Event{
			arrive(1000, c, 1010, cp), recv(1100, proxyTid, c, 10, 1010, cp),
			arrive(1500, c, 1020, cp), recv(1600, proxyTid, c, 10, 1020, cp),
			send(2000, proxyTid, s, 15, 5015, sp), send(2500, proxyTid, s, 5, 5020, sp),
		},
		want: []time.Duration{1000, 1000},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := analyze(tc.events)
			if len(got) != len(tc.want) {
				t.Fatalf("chunks %v, want residences %v", residences(got), tc.want)
			}
			for i, c := range got {
				if c.Direction != ToUpstream || c.Residence() != tc.want[i] || c.Split.Sum() != c.Residence() {
					t.Errorf("chunk %d: %v, want to_upstream %v", i, residences(got)[i], tc.want[i])
				}
			}
		})
	}
}

// TestAnalyzeConnections: one thread serves two connections and reads
// both before it sends (as HAProxy's loop does), and a new connection's
// socket takes the address of a closed one: each chunk is its own.
func TestAnalyzeConnections(t *testing.T) {
	const c1, s1, c2, s2 = 0xa000, 0xb000, 0xa100, 0xb100
	c2p, s2p := ports(8080, 40001), ports(50001, 3306)
	events := []tracer.Event{
		arrive(1000, c1, 1064, clientPorts), arrive(1100, c2, 2032, c2p),
		recv(2000, proxyTid, c1, 64, 1064, clientPorts), recv(2100, proxyTid, c2, 32, 2032, c2p),
		send(3000, proxyTid, s1, 64, 5064, serverPorts), send(3500, proxyTid, s2, 32, 6032, s2p),
		arrive(4000, s2, 7032, s2p), arrive(4100, s1, 8064, serverPorts),
		recv(5000, proxyTid, s2, 32, 7032, s2p), recv(5100, proxyTid, s1, 64, 8064, serverPorts),
		send(5500, proxyTid, c2, 32, 9032, c2p), send(6000, proxyTid, c1, 64, 9964, clientPorts),
		// c1 closed; a new connection's accepted socket at its address,
		// in another sequence space, forwarded to s2's address reused.
		arrive(10000, c1, 100, ports(8080, 40002)), recv(10500, proxyTid, c1, 16, 100, ports(8080, 40002)),
		send(11000, proxyTid, s2, 16, 300, ports(50002, 3306)),
	}
	got := analyze(events)
	want := []struct {
		dir       Direction
		res       time.Duration
		bytes     int
		inbound   uint64
		arrivedAt uint64
	}{
		{ToUpstream, 2000, 64, c1, 1000}, {ToUpstream, 2400, 32, c2, 1100},
		{ToClient, 1500, 32, s2, 4000}, {ToClient, 1900, 64, s1, 4100},
		{ToUpstream, 1000, 16, c1, 10000},
	}
	if len(got) != len(want) {
		t.Fatalf("chunks %v, want %+v", residences(got), want)
	}
	for i, w := range want {
		c := got[i]
		if c.Direction != w.dir || c.Residence() != w.res || c.Bytes != w.bytes || c.Inbound != w.inbound || c.Arrival != w.arrivedAt {
			t.Errorf("chunk %d: %+v, want %+v", i, c, w)
		}
	}
}
