package hop

import (
	"math"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/probe/machine"
)

var probed = &machine.Machine{
	Wake: machine.WakeUS{SameCPU: 1, CrossCPU: 40},
	Leg:  machine.LegUS{TCP: 1.5, UNIX: 0.5},
}

func relayPath(regime string, placement map[string]string, added float64, relayUs *float64) PathResult {
	return PathResult{
		Name: "epoll tcp->tcp", Relay: Epoll, ClientTransport: TCP, UpstreamTransport: TCP, Hops: 1,
		Regime: regime, Placement: placement, AddedUs: &Added{P50: added}, RelayUs: relayUs,
	}
}

func TestExplainPacked(t *testing.T) {
	code := 5.0
	paths := []PathResult{relayPath("packed", map[string]string{"client": "0", "relay": "0", "server": "0"}, 11, &code)}
	Explain(paths, probed)
	d := paths[0].Decomposition
	// A hop on one CPU: two more same-CPU wake-ups and two more TCP legs
	// per request.
	if d == nil || d.RelayCode != 5 || d.Wakeups != 2 || d.Kernel != 3 || d.Residual != 1 || d.Method != "probe" {
		t.Fatalf("decomposition %+v", d)
	}
	if e := *paths[0].ExplainedPct; math.Abs(e-100*(1-1.0/11)) > 1e-9 {
		t.Errorf("explained %v%%", e)
	}
}

func TestExplainSpreadOnTwoCPUs(t *testing.T) {
	code := 6.0
	paths := []PathResult{relayPath("spread", map[string]string{"client": "0", "relay": "1", "server": "0"}, 150, &code)}
	Explain(paths, probed)
	d := paths[0].Decomposition
	// The relay alone on CPU 1: four cross-CPU wake-ups replace the direct
	// path's two same-CPU ones.
	if d.Wakeups != 2*(40+40-1) || d.Kernel != 3 || d.Residual != 150-6-158-3 {
		t.Fatalf("decomposition %+v", d)
	}
	if *paths[0].ExplainedPct < 0 || *paths[0].ExplainedPct > 100 {
		t.Errorf("explained %v%% out of range", *paths[0].ExplainedPct)
	}
}

// With the relays' CPU time, the legs' kernel path their system calls
// carry is taken out of the relay code, not counted twice.
func TestExplainRelayCPU(t *testing.T) {
	cpu := 12.0
	p := relayPath("packed", map[string]string{"client": "0", "relay": "0", "server": "0"}, 14, nil)
	p.RelayCPUUs = &cpu
	paths := []PathResult{p}
	Explain(paths, probed)
	// Its two same-CPU wake-ups are its own switches: carved out of it too.
	if d := paths[0].Decomposition; d.RelayCode != 7 || d.Wakeups != 2 || d.Kernel != 3 || d.Residual != 2 || d.Endpoints != nil || !strings.Contains(d.Note, "endpoints") {
		t.Errorf("decomposition %+v", d)
	}
}

// The same-CPU wake-ups a hop adds come out of the relay's CPU time; the
// cross-CPU ones, mostly not CPU time, are added on top.
func TestExplainCarvesSameCPUWakeups(t *testing.T) {
	for _, c := range []struct {
		name                  string
		client, relay, server string
		hops                  int
		wakes, code           float64
	}{
		{"packed", "0", "0", "0", 1, 2, 20 - 3 - 2},
		{"packed, two hops", "0", "0", "0", 2, 4, 20 - 6 - 4},
		// The relay alone: 4 cross-CPU wake-ups for the direct path's 2
		// same-CPU ones, none carved.
		{"spread", "0", "1", "0", 1, 2 * (40 + 40 - 1), 20 - 3},
		// Relay with the client, server apart: the client-relay switches
		// are the relay's; the relay-server ones, like the direct path's
		// client-server ones, cross.
		{"relay with client", "0", "0", "1", 1, 2, 20 - 3 - 2},
		{"relay with server", "1", "0", "0", 1, 2, 20 - 3 - 2},
	} {
		cpu := 20.0
		p := relayPath("custom", map[string]string{"client": c.client, "relay": c.relay, "server": c.server}, 30, nil)
		p.Hops, p.RelayCPUUs = c.hops, &cpu
		paths := []PathResult{p}
		Explain(paths, probed)
		d := paths[0].Decomposition
		if d.Wakeups != c.wakes || d.RelayCode != c.code || math.Abs(d.Residual-(30-c.code-c.wakes-d.Kernel)) > 1e-9 {
			t.Errorf("%s: %+v, want wake-ups %v and relay code %v", c.name, d, c.wakes, c.code)
		}
	}
}

// The endpoints are the client's and the server's CPU over the direct
// baseline's, and come out of the residual; a missing reading on either
// side leaves them out, with a note.
func TestExplainEndpoints(t *testing.T) {
	packed := map[string]string{"client": "0", "relay": "0", "server": "0"}
	direct := PathResult{Name: "direct tcp", Relay: Direct, ClientTransport: TCP, Regime: "packed", Placement: packed,
		AddedUs: &Added{}, Endpoints: &Endpoints{ClientCPUUs: 10, ServerCPUUs: 4}}
	cpu := 12.0
	p := relayPath("packed", packed, 14, nil)
	p.RelayCPUUs = &cpu
	p.Endpoints = &Endpoints{ClientCPUUs: 10.5, ServerCPUUs: 5}
	paths := []PathResult{direct, p}
	Explain(paths, probed)
	if direct := paths[0].Decomposition; direct != nil {
		t.Errorf("direct path decomposed: %+v", direct)
	}
	d := paths[1].Decomposition
	if d.Endpoints == nil || *d.Endpoints != 1.5 || d.Residual != 14-7-2-3-1.5 || d.Note != "" {
		t.Fatalf("decomposition %+v", d)
	}
	// Spread, the endpoints' extra CPU is the woken side of the cross-CPU
	// wake-ups: not added on top of them.
	ps := []PathResult{direct, p}
	for i := range ps {
		ps[i].Regime = "spread"
		ps[i].Placement = map[string]string{"client": "0", "relay": "1", "server": "0"}
	}
	Explain(ps, probed)
	if d := ps[1].Decomposition; d.Endpoints != nil || !strings.Contains(d.Note, "across CPUs") || d.Residual != 14-9-2*(40+40-1)-3 {
		t.Errorf("spread: %+v", d)
	}
	for name, miss := range map[string]func(ps []PathResult){
		"path":     func(ps []PathResult) { ps[1].Endpoints = &Endpoints{Error: "client CPU not read"} },
		"baseline": func(ps []PathResult) { ps[0].Endpoints = nil },
		"no baseline": func(ps []PathResult) {
			ps[0].ClientTransport = UNIX
		},
	} {
		ps := []PathResult{direct, p}
		ps[0].Decomposition, ps[1].Decomposition = nil, nil
		miss(ps)
		Explain(ps, probed)
		if d := ps[1].Decomposition; d.Endpoints != nil || d.Residual != 14-7-2-3 || !strings.Contains(d.Note, "endpoints' CPU not measured") {
			t.Errorf("%s missing: %+v", name, d)
		}
	}
}

func TestExplainLeavesOut(t *testing.T) {
	paths := []PathResult{
		{Name: "direct tcp", Relay: Direct, AddedUs: &Added{}},
		relayPath("none", map[string]string{"client": "unpinned"}, 20, nil),
		relayPath("packed", map[string]string{"client": "0", "relay": "0", "server": "0"}, 20, nil),
	}
	Explain(paths, probed)
	if paths[0].Decomposition != nil || paths[1].Decomposition != nil {
		t.Errorf("direct or unpinned path decomposed: %+v %+v", paths[0].Decomposition, paths[1].Decomposition)
	}
	if d := paths[2].Decomposition; d == nil || d.Note == "" || d.RelayCode != 0 || d.Residual != 20-2-3 {
		t.Errorf("no stats: %+v, want the relay code in the residual and a note", d)
	}
	Explain(paths, nil) // no probe: nothing to explain with, no panic
}

func direct(regime string, placement map[string]string, clientWake *float64) PathResult {
	return PathResult{
		Name: "direct tcp", Relay: Direct, ClientTransport: TCP, UpstreamTransport: TCP,
		Regime: regime, Placement: placement, ClientWakeUs: clientWake,
	}
}

var packed = map[string]string{"client": "0", "relay": "0", "server": "0"}

// Where the relay's and the client's wake-ups cross CPUs and are stamped,
// the wake-ups are theirs: the relay's stamped wake-ups plus the client's
// change against its own direct path, the unstamped server's change at
// the probe's constants.
func TestExplainTimestamps(t *testing.T) {
	// Three CPUs: every wake-up crosses, the server's change is nil, and
	// the baseline's client wake-up is taken off as stamped.
	p := relayPath("spread", map[string]string{"client": "0", "relay": "1", "server": "2"}, 150, nil)
	p.RelayCPUUs = new(9.0) // 6 once the two TCP legs are out
	p.RelayWakeUs, p.ClientWakeUs = new(80.0), new(42.0)
	paths := []PathResult{direct("spread", map[string]string{"client": "0", "server": "2"}, new(39.0)), p}
	Explain(paths, probed)
	d := paths[1].Decomposition
	if d == nil || d.Method != "timestamps" || d.Wakeups != 80+(42-39) || d.RelayCode != 6 || d.Kernel != 3 || d.Residual != 150-6-83-3 {
		t.Fatalf("decomposition %+v, want timestamps: wake-ups 83, residual 58", d)
	}
	if e := *paths[1].ExplainedPct; math.Abs(e-100*(1-58.0/150)) > 1e-9 {
		t.Errorf("explained %v%%", e)
	}

	// Two CPUs: client and server share CPU 0, so the baseline's client
	// wake-up is a same-CPU one (its stamp would be the server's tail):
	// the probe prices it, and the server, now woken across CPUs by the
	// relay, pays the cross-CPU wake-up instead of the same-CPU one.
	s := relayPath("spread", map[string]string{"client": "0", "relay": "1", "server": "0"}, 150, new(6.0))
	s.RelayWakeUs, s.ClientWakeUs = new(80.0), new(42.0)
	paths = []PathResult{direct("spread", map[string]string{"client": "0", "server": "0"}, new(9.0)), s}
	Explain(paths, probed)
	if d := paths[1].Decomposition; d.Method != "timestamps" || d.Wakeups != 80+(42-1)+(40-1) {
		t.Fatalf("two CPUs: %+v, want wake-ups 80 + 41 + 39", d)
	}
}

// A wake-up on a shared CPU is stamped with its waker's tail, not its own
// cost: without every stamp the formula needs, or where a stamped wake-up
// shares its CPU, the probe's counts stand.
func TestExplainTimestampsOnlyAcrossCPUs(t *testing.T) {
	spread := map[string]string{"client": "0", "relay": "1", "server": "2"}
	base := map[string]string{"client": "0", "server": "2"}
	for _, tc := range []struct {
		name  string
		paths func(p PathResult) []PathResult
		want  float64 // the probe's wake-ups
	}{
		{"packed: every wake-up on one CPU", func(p PathResult) []PathResult {
			p.Regime, p.Placement = "packed", packed
			return []PathResult{direct("packed", map[string]string{"client": "0", "server": "0"}, new(8.0)), p}
		}, 2},
		{"relay beside the server", func(p PathResult) []PathResult {
			p.Regime, p.Placement = "custom", map[string]string{"client": "0", "relay": "1", "server": "1"}
			return []PathResult{direct("custom", map[string]string{"client": "0", "server": "1"}, new(8.0)), p}
		}, 2 * (40 + 1 - 40)},
		{"a chain", func(p PathResult) []PathResult {
			p.Hops, p.Placement = 2, map[string]string{"client": "0", "relay": "1", "server": "2"}
			return []PathResult{direct("spread", base, new(3.0)), p}
		}, 2 * (40 + 1 + 40 - 40)},
		{"relay legs unstamped (tcp->unix)", func(p PathResult) []PathResult {
			p.RelayWakeUs, p.UpstreamTransport = nil, UNIX
			return []PathResult{direct("spread", base, new(3.0)), p}
		}, 2 * 40},
		{"client unstamped", func(p PathResult) []PathResult {
			p.ClientWakeUs = nil
			return []PathResult{direct("spread", base, new(3.0)), p}
		}, 2 * 40},
		{"baseline unstamped", func(p PathResult) []PathResult {
			return []PathResult{direct("spread", base, nil), p}
		}, 2 * 40},
		{"only another regime's baseline stamped", func(p PathResult) []PathResult {
			return []PathResult{direct("packed", base, new(3.0)), p}
		}, 2 * 40},
		{"no baseline", func(p PathResult) []PathResult { return []PathResult{p} }, 2 * 40},
	} {
		p := relayPath("spread", spread, 200, new(5.0))
		p.RelayWakeUs, p.ClientWakeUs = new(70.0), new(35.0)
		paths := tc.paths(p)
		Explain(paths, probed)
		d := paths[len(paths)-1].Decomposition
		if d == nil || d.Method != "probe" || d.Wakeups != tc.want {
			t.Errorf("%s: %+v, want the probe's %v µs", tc.name, d, tc.want)
		}
	}
}

// A sockmap hop wakes no relay thread but does wake a kworker, on the
// sender's CPU, once per direction per hop: the probe's same-CPU wake-up,
// whatever the placement, and never the relay's stamps (it has none).
func TestExplainSockmap(t *testing.T) {
	for _, tc := range []struct {
		regime    string
		placement map[string]string
		hops      int
	}{
		{"packed", packed, 1},
		{"spread", map[string]string{"client": "0", "relay": "1", "server": "0"}, 1},
		{"packed", packed, 3},
	} {
		p := relayPath(tc.regime, tc.placement, 8, new(0.0))
		p.Name, p.Relay, p.Hops, p.ClientWakeUs = "sockmap tcp->tcp", Sockmap, tc.hops, new(4.0)
		paths := []PathResult{direct(tc.regime, map[string]string{"client": "0", "server": "0"}, new(3.0)), p}
		Explain(paths, probed)
		d := paths[1].Decomposition
		want := 2 * float64(tc.hops) * probed.Wake.SameCPU
		if d == nil || d.Method != "probe" || d.Wakeups != want || d.Kernel != 2*float64(tc.hops)*probed.Leg.TCP || d.Residual != 8-want-d.Kernel {
			t.Errorf("%s x%d: %+v, want %v µs of kworker wake-ups and the residual shown", tc.regime, tc.hops, d, want)
		}
	}
}

// A sockmap hop's relay code is the kworkers' CPU time that relay_cpu_us
// holds, less the extra legs and the wake-ups, whose switches the workers
// ran; where the workers were not read, relay_cpu_us is hoprelay's alone
// (which does nothing per message), the wake-ups are added as before, and
// the note says why.
func TestExplainSockmapKworkers(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cpu       float64
		kw        *Kworkers
		code      float64
		residual  float64
		notePart  string
		explained float64
	}{
		// 2 wake-ups (1 µs) + 2 legs (1.5 µs) = 5 µs of the 7.5 the
		// workers ran: 2.5 of code; 8 - 7.5 left.
		{"read", 7.5, &Kworkers{CPUs: "0", CPUUs: 7.4, Runs: 2}, 2.5, 0.5, "kworkers' CPU", 100 * (1 - 0.5/8)},
		// Workers that ran less than the legs and wake-ups they carry
		// leave no code, never a negative one.
		{"short", 4, &Kworkers{CPUs: "0", CPUUs: 3.9, Runs: 2}, 0, 3, "kworkers' CPU", 100 * (1 - 3.0/8)},
		{"failed", 0.1, &Kworkers{CPUs: "0", Error: "kworkers not read: no /proc"}, 0, 3, "no /proc", 100 * (1 - 3.0/8)},
		{"absent", 0.1, nil, 0, 3, "kworkers not read", 100 * (1 - 3.0/8)},
	} {
		p := relayPath("packed", packed, 8, nil)
		p.Name, p.Relay, p.RelayCPUUs, p.Kworkers = "sockmap tcp->tcp", Sockmap, new(tc.cpu), tc.kw
		paths := []PathResult{direct("packed", map[string]string{"client": "0", "server": "0"}, nil), p}
		Explain(paths, probed)
		d := paths[1].Decomposition
		if d == nil || math.Abs(d.RelayCode-tc.code) > 1e-9 || d.Wakeups != 2 || d.Kernel != 3 || math.Abs(d.Residual-tc.residual) > 1e-9 {
			t.Errorf("%s: %+v, want code %v, wake-ups 2, kernel 3, residual %v", tc.name, d, tc.code, tc.residual)
			continue
		}
		if !strings.Contains(d.Note, tc.notePart) || !d.Measured() {
			t.Errorf("%s: note %q, want one naming %q", tc.name, d.Note, tc.notePart)
		}
		if e := *paths[1].ExplainedPct; math.Abs(e-tc.explained) > 1e-9 {
			t.Errorf("%s: explained %v%%, want %v", tc.name, e, tc.explained)
		}
	}
}
