package attach

import (
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
		{Time: 5000, Kind: tracer.KindSend, Tid: proxyTid, Arg: skServer, Arg2: 60, Tid2: 9060, Tgid2: ports(50000, 3306)},
		{Time: 5200, Kind: tracer.KindSend, Tid: proxyTid, Arg: skServer, Arg2: 40, Tid2: 9100, Tgid2: ports(50000, 3306)},
		{Time: 6000, Kind: tracer.KindDataReady, Arg: skServer, Tid2: 5100, Tgid2: ports(50000, 3306), Tid: 8},
		{Time: 7000, Kind: tracer.KindRecv, Tid: proxyTid, Arg: skServer, Arg2: 50, Tid2: 5100, Tgid2: ports(50000, 3306)},
		{Time: 8000, Kind: tracer.KindSend, Tid: proxyTid, Arg: skClient, Arg2: 50, Tid2: 2050, Tgid2: ports(8080, 40000)},
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
		{Direction: ToUpstream, Arrival: 1000, Sent: 5200, Bytes: 100, Tid: proxyTid, Inbound: skClient,
			Split: Split{Runnable: 500, OnCPU: 3500, Softirq: 200}},
		{Direction: ToClient, Arrival: 6000, Sent: 8000, Bytes: 50, Tid: proxyTid, Inbound: skServer,
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
		{Time: 3000, Kind: tracer.KindSend, Tid: proxyTid, Arg: skClient, Arg2: 100},
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
	if b := r.SplitUs.bar(); len(b) != barWidth {
		t.Errorf("bar %q is %d wide, want %d", b, len(b), barWidth)
	}
}
