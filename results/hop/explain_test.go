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
