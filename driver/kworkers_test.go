package driver

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/relay"
)

// A sockmap series' kworker CPU is per request over its kept rounds (a
// warm-up round and a failed one left out, each round's requests counted
// over its warm-up too), less its baseline's per request, floored at 0,
// and added to the relay processes' CPU; other series are left alone, and
// a failed reading leaves relay_cpu_us as it was and says why.
func TestKworkerPerRequest(t *testing.T) {
	sm := hop.Path{Relay: hop.Sockmap, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	cells := []Cell{{Path: hop.DirectPath(hop.TCP), Threads: 1}, {Path: sm, Threads: 1}, {Path: hop.DirectPath(hop.UNIX), Threads: 1}}
	round := 2 * time.Second // 1.5 s timed, 0.5 s warm-up
	series := func() []CellRounds {
		out := make([]CellRounds, len(cells))
		for i, c := range cells {
			out[i] = CellRounds{Cell: c, Series: hop.Series{Samples: []hop.Sample{{TPS: 1}, {TPS: 1000}, {TPS: 1000}, {Failed: "stalled"}}}}
		}
		return out
	}
	k := &kworkerRounds{cpus: affinity.NewCPUSet(0), roundReads: roundReads[affinity.Kworkers, kworkerSample]{ran: [][]kworkerSample{
		{{cpu: time.Second, ok: true}, {cpu: 200 * time.Microsecond, runs: 10, ok: true}, {cpu: 200 * time.Microsecond, runs: 10, ok: true}, {}},
		{{cpu: time.Second, ok: true}, {cpu: 8 * time.Millisecond, runs: 4000, ok: true}, {cpu: 10 * time.Millisecond, runs: 4010, ok: true}, {}},
		{{}, {}, {}, {}},
	}}}
	s := series()
	s[1].RelayCPUUs = new(0.5)
	k.perRequest(s, 1, round)
	// 18 ms over 4000 requests less 0.4 ms over 4000.
	kw := s[1].Kworkers
	if kw == nil || kw.Error != "" || kw.CPUs != "0" || math.Abs(kw.BaselineCPUUs-0.1) > 1e-9 || math.Abs(kw.CPUUs-4.4) > 1e-9 || math.Abs(kw.Runs-(8010.0-20)/4000) > 1e-9 {
		t.Fatalf("kworkers %+v", kw)
	}
	if got := *s[1].RelayCPUUs; math.Abs(got-4.9) > 1e-9 {
		t.Errorf("relay CPU %v µs, want the process's 0.5 plus the workers' 4.4", got)
	}
	if s[0].Kworkers != nil || s[0].RelayCPUUs != nil || s[2].Kworkers != nil {
		t.Errorf("direct series given kworker figures: %+v %+v", s[0], s[2])
	}

	// A baseline whose workers ran more per request than the path's
	// leaves 0, never less.
	k.ran[0][1].cpu, k.ran[0][2].cpu = time.Second, time.Second
	s = series()
	k.perRequest(s, 1, round)
	if kw := s[1].Kworkers; kw == nil || kw.CPUUs != 0 || *s[1].RelayCPUUs != 0 {
		t.Errorf("kworkers %+v, relay CPU %v: want 0", kw, s[1].RelayCPUUs)
	}

	k.err = errors.New("no /proc")
	s = series()
	s[1].RelayCPUUs = new(0.5)
	k.perRequest(s, 1, round)
	if kw := s[1].Kworkers; kw == nil || !strings.Contains(kw.Error, "no /proc") || *s[1].RelayCPUUs != 0.5 {
		t.Errorf("failed reading: kworkers %+v, relay CPU %v", kw, *s[1].RelayCPUUs)
	}
	var none *kworkerRounds
	none.perRequest(s, 1, round) // no sockmap path: nothing read, nothing set
	if newKworkerRounds([]Cell{{Path: hop.DirectPath(hop.TCP)}}, 3, affinity.Placement{}, false) != nil {
		t.Error("a stage without a sockmap path reads kworkers")
	}
}

// A packed run through the real sockmap relay: the kworkers of the one
// CPU carry the hop, about one run per direction per request, and their
// time is the relay code: relay_cpu_us holds it and the split says so.
func TestRunSockmapKworkers(t *testing.T) {
	if err := relay.CheckSockmap(); err != nil {
		peer.Unavailable(t, err.Error())
	}
	hoprelay := peer.Hoplat(t, "hoprelay")
	regimes, err := DefaultRegimes()
	if err != nil {
		t.Fatal(err)
	}
	cfg := shortConfig(t, hop.Direct, hop.Sockmap)
	fakes := cfg.Locate
	cfg.Locate = func(name string) (string, error) {
		if name == "hoprelay" {
			return hoprelay, nil
		}
		return fakes(name)
	}
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Proto = ProtoEcho
	cfg.Regimes = regimes[:1]
	cfg.Rounds, cfg.Discard = 3, 1
	rep := runClean(t, cfg)
	var found bool
	for _, p := range rep.Paths {
		if p.Relay != hop.Sockmap {
			continue
		}
		found = true
		kw := p.Kworkers
		// About two runs a request, one per direction; a loaded machine
		// (a whole suite under the race detector) splits some into more.
		// Runs are a count of the kworkers' turns on the CPU, not a time:
		// 6 is three times the mechanism's two on any machine.
		if kw == nil || kw.Error != "" || kw.CPUUs <= 0 || kw.Runs < 1 || kw.Runs > 6 {
			t.Fatalf("%s: kworkers %+v: want their time and about two runs per request", p.Name, kw)
		}
		if p.RelayCPUUs == nil || *p.RelayCPUUs < kw.CPUUs {
			t.Errorf("%s: relay CPU %v µs, below the kworkers' %v", p.Name, p.RelayCPUUs, kw.CPUUs)
		}
		if d := p.Decomposition; d == nil || !strings.Contains(d.Note, "kworkers' CPU") {
			t.Errorf("%s: decomposition %+v does not say its relay code is the kworkers'", p.Name, d)
		}
		t.Logf("%s: kworkers on CPUs %s ran %.2f µs in %.2f runs per request (baseline %.3f µs); relay CPU %.2f µs; split %+v",
			p.Name, kw.CPUs, kw.CPUUs, kw.Runs, kw.BaselineCPUUs, *p.RelayCPUUs, *p.Decomposition)
	}
	if !found {
		t.Fatalf("no sockmap path in %d paths (skipped %v)", len(rep.Paths), rep.Skipped)
	}
}
