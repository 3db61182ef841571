package hop

import (
	"slices"
	"strings"
	"testing"
)

// intelRun is a stage on a host that alternates between two speeds, as
// the 2-vCPU Intel guest did (direct tcp's rounds 7.5, 7.5, 7.7 and
// 11.0, 11.3, 11.3 µs): every path's rounds move with the controls'.
func intelRun() []Series {
	slow := []bool{false, true, false, true, false, true, false} // round 0 discarded
	at := func(p Path, fast float64, scale float64) Series {
		var p50s []float64
		for i, s := range slow {
			v := fast * (1 + 0.01*float64(i%3))
			if s {
				v *= scale
			}
			p50s = append(p50s, v)
		}
		return pathSeries(p, 1, p50s...)
	}
	all := []Series{at(directTCP, 7.5, 1.48), at(directUNIX, 5.2, 1.45)}
	for i, r := range []Relay{Goroutine, Epoll, Splice, Socat, HAProxy} {
		all = append(all,
			at(Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}, 30+float64(i), 1.45),
			at(Path{Relay: r, Client: UNIX, Upstream: TCP, Hops: 1}, 26+float64(i), 1.46))
	}
	return all
}

func TestAnalyzePairsPathsWhereTheHostChangedSpeed(t *testing.T) {
	paths, _ := Analyze(intelRun(), 1, false)
	states := States(paths)
	if len(states) != 2 || states[0].Name != "fast" || states[1].Name != "slow" {
		t.Fatalf("states %+v, want fast and slow", states)
	}
	if !slices.Equal(states[0].Rounds, []int{2, 4, 6}) || !slices.Equal(states[1].Rounds, []int{1, 3, 5}) {
		t.Errorf("rounds %v and %v, want 2, 4, 6 and 1, 3, 5", states[0].Rounds, states[1].Rounds)
	}
	if states[0].Control != "direct tcp" || !strings.Contains(states[0].Evidence, "direct unix with it") ||
		!strings.Contains(states[0].Evidence, "10 of 10 other paths slower in the same rounds") {
		t.Errorf("evidence %q of %s", states[0].Evidence, states[0].Control)
	}
	for _, p := range paths {
		if !p.Stable || p.MachineNoise != "" {
			t.Errorf("%s flagged for the host's speed: %q %q", p.Name, p.UnstableReason, p.MachineNoise)
		}
		if p.Relay != Direct && (p.AddedUs == nil || p.AddedUs.Method != "paired" || len(p.AddedUs.States) != 2) {
			t.Errorf("%s: added_us %+v, want method paired and a figure per state", p.Name, p.AddedUs)
		}
	}
	// One path whose hop itself jumped in two rounds is still flagged.
	all := intelRun()
	odd := all[4] // epoll tcp->tcp
	for _, i := range []int{2, 4} {
		odd.Samples[i].Latency.P50 *= 1.8
	}
	paths, _ = Analyze(all, 1, false)
	if p := find(t, paths, epollTCP); p.Stable || !strings.Contains(p.UnstableReason, "round p50 over direct tcp's in the same cycle") {
		t.Errorf("epoll with a hop of its own: stable %v %q", p.Stable, p.UnstableReason)
	}
}

// A run where most paths' rounds spread keeps every one flagged, and
// marks those past the most spread (and not moved themselves) as the
// machine's noise, for the report to say once.
func TestAnalyzeMarksTheMachinesNoise(t *testing.T) {
	var all []Series
	all = append(all, pathSeries(directTCP, 1, 20, 20, 20.5, 20.2, 20.1))
	for i := range 19 {
		p := Path{Relay: Relay("proxy" + string(rune('a'+i))), Client: TCP, Upstream: TCP, Hops: 1}
		spread := 1.35 + 0.05*float64(i)
		s := pathSeries(p, 1, 60, 60, 60*spread, 62, 61)
		s.Placement = map[string]string{"client": "0", "relay": "0", "server": "0"}
		if i == 0 {
			s.Placement["relay"] = "0|1" // its own cause
		}
		all = append(all, s)
	}
	paths, _ := Analyze(all, 1, false)
	var flagged, noise []string
	for _, p := range paths {
		if !p.Stable {
			flagged = append(flagged, string(p.Relay))
		}
		if p.MachineNoise != "" {
			noise = append(noise, string(p.Relay))
			if p.Stable || p.UnstableReason == "" {
				t.Errorf("%s: machine_noise on a path not flagged: stable %v %q", p.Relay, p.Stable, p.UnstableReason)
			}
		}
	}
	if len(flagged) != 19 {
		t.Errorf("flagged %v, want all 19 spread paths", flagged)
	}
	if len(noise) != 14 || slices.Contains(noise, "proxya") || slices.Contains(noise, "proxys") {
		t.Errorf("machine_noise on %v, want 14: not the one that moved, not the four most spread", noise)
	}
}
