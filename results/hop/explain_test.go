package hop

import (
	"math"
	"testing"

	"github.com/hoplat/hoplat/results"
)

var machine = &results.Machine{
	Wake: results.WakeUS{SameCPU: 1, CrossCPU: 40},
	Leg:  results.LegUS{TCP: 1.5, UNIX: 0.5},
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
	Explain(paths, machine)
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
	Explain(paths, machine)
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
	Explain(paths, machine)
	if d := paths[0].Decomposition; d.RelayCode != 9 || d.Kernel != 3 || d.Residual != 0 || d.Note != "" {
		t.Errorf("decomposition %+v", d)
	}
}

func TestExplainLeavesOut(t *testing.T) {
	paths := []PathResult{
		{Name: "direct tcp", Relay: Direct, AddedUs: &Added{}},
		relayPath("none", map[string]string{"client": "unpinned"}, 20, nil),
		relayPath("packed", map[string]string{"client": "0", "relay": "0", "server": "0"}, 20, nil),
	}
	Explain(paths, machine)
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

func f(v float64) *float64 { return &v }

var packed = map[string]string{"client": "0", "relay": "0", "server": "0"}

// Where the client and the relays stamp, the wake-ups are theirs: the
// relays' stamped wake-ups plus the client's change against its own direct
// path, the unstamped server's change at the probe's constants.
func TestExplainTimestamps(t *testing.T) {
	p := relayPath("packed", packed, 20, nil)
	p.RelayCPUUs = f(9) // 6 once the two TCP legs are out
	p.RelayWakeUs, p.ClientWakeUs = f(7), f(5)
	paths := []PathResult{direct("packed", map[string]string{"client": "0", "server": "0"}, f(3.5)), p}
	Explain(paths, machine)
	d := paths[1].Decomposition
	// On one CPU the server is woken by a same-CPU wake-up either way: 0.
	if d == nil || d.Method != "timestamps" || d.Wakeups != 7+(5-3.5) || d.RelayCode != 6 || d.Kernel != 3 || d.Residual != 20-6-8.5-3 {
		t.Fatalf("decomposition %+v, want timestamps: wake-ups 8.5, residual 2.5", d)
	}
	if e := *paths[1].ExplainedPct; math.Abs(e-100*(1-2.5/20)) > 1e-9 {
		t.Errorf("explained %v%%", e)
	}

	// The relay alone on CPU 1: the server, now woken from CPU 1, pays
	// the probe's cross-CPU wake-up where the direct path paid a same-CPU
	// one; the client's change is measured.
	s := relayPath("spread", map[string]string{"client": "0", "relay": "1", "server": "0"}, 150, f(6))
	s.RelayWakeUs, s.ClientWakeUs = f(80), f(42)
	paths = []PathResult{direct("spread", map[string]string{"client": "0", "server": "0"}, f(2)), s}
	Explain(paths, machine)
	if d := paths[1].Decomposition; d.Method != "timestamps" || d.Wakeups != 80+(42-2)+(40-1) {
		t.Fatalf("spread: %+v, want wake-ups 80 + 40 + 39", d)
	}

	// A chain: the last relay's CPU is the one that wakes the server.
	c := relayPath("custom", map[string]string{"client": "0", "relay": "0|1", "server": "1"}, 90, nil)
	c.Hops, c.RelayWakeUs, c.ClientWakeUs = 2, f(50), f(4)
	paths = []PathResult{direct("custom", map[string]string{"client": "0", "server": "1"}, f(4)), c}
	Explain(paths, machine)
	if d := paths[1].Decomposition; d.Method != "timestamps" || d.Wakeups != 50+0+(1-40) {
		t.Fatalf("chain: %+v, want the server woken on its own CPU now (1) instead of across (40)", d)
	}
}

// Without every stamp the formula needs, the probe's counts stand.
func TestExplainTimestampsNeedEveryStamp(t *testing.T) {
	base := map[string]string{"client": "0", "server": "0"}
	for _, tc := range []struct {
		name  string
		paths func(p PathResult) []PathResult
	}{
		{"relay legs unstamped (tcp->unix)", func(p PathResult) []PathResult {
			p.RelayWakeUs, p.UpstreamTransport = nil, UNIX
			return []PathResult{direct("packed", base, f(3)), p}
		}},
		{"client unstamped", func(p PathResult) []PathResult {
			p.ClientWakeUs = nil
			return []PathResult{direct("packed", base, f(3)), p}
		}},
		{"baseline unstamped", func(p PathResult) []PathResult {
			return []PathResult{direct("packed", base, nil), p}
		}},
		{"only another regime's baseline stamped", func(p PathResult) []PathResult {
			return []PathResult{direct("spread", base, f(3)), p}
		}},
		{"no baseline", func(p PathResult) []PathResult { return []PathResult{p} }},
	} {
		p := relayPath("packed", packed, 20, f(5))
		p.RelayWakeUs, p.ClientWakeUs = f(7), f(5)
		paths := tc.paths(p)
		Explain(paths, machine)
		d := paths[len(paths)-1].Decomposition
		if d == nil || d.Method != "probe" || d.Wakeups != 2 {
			t.Errorf("%s: %+v, want the probe's two same-CPU wake-ups", tc.name, d)
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
		p := relayPath(tc.regime, tc.placement, 8, f(0))
		p.Name, p.Relay, p.Hops, p.ClientWakeUs = "sockmap tcp->tcp", Sockmap, tc.hops, f(4)
		paths := []PathResult{direct(tc.regime, map[string]string{"client": "0", "server": "0"}, f(3)), p}
		Explain(paths, machine)
		d := paths[1].Decomposition
		want := 2 * float64(tc.hops) * machine.Wake.SameCPU
		if d == nil || d.Method != "probe" || d.Wakeups != want || d.Kernel != 2*float64(tc.hops)*machine.Leg.TCP || d.Residual != 8-want-d.Kernel {
			t.Errorf("%s x%d: %+v, want %v µs of kworker wake-ups and the residual shown", tc.regime, tc.hops, d, want)
		}
	}
}
