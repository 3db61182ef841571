package hop

import (
	"math"
	"slices"
	"testing"
)

// The direct paths are the yardstick: however their rounds spread, they
// are not flagged, and their spread is the stage's host noise. A relay
// path whose rounds spread no wider than that is not flagged; one whose
// middle rounds fall in two clusters far apart is, its reason naming
// both spreads; one odd round flags nothing.
func TestAnalyzeJudgesRelaysAgainstTheDirectPaths(t *testing.T) {
	goroutine := Path{Relay: Goroutine, Client: TCP, Upstream: TCP, Hops: 1}
	all := []Series{
		// The first round of each is discarded.
		pathSeries(directTCP, 1, 9, 6.0, 10.5, 8.5, 14.2, 13.8, 5.9),
		pathSeries(directUNIX, 1, 5, 4.6, 4.4, 4.9, 4.7, 4.6, 4.5),
		pathSeries(goroutine, 1, 17, 16.7, 16.0, 16.6, 17.3, 19.2, 16.7),
		pathSeries(epollTCP, 1, 120, 137.7, 77.3, 68.2, 121.0, 140.5, 76.9),
		pathSeries(epollUNIX, 1, 15, 15.3, 15.0, 14.8, 42.0, 15.1, 15.2),
	}
	paths, _ := Analyze(all, 1, false)
	noise := HostNoiseOf(paths)
	if len(noise) != 1 || noise[0].Control != "direct tcp" || math.Abs(noise[0].SpreadPct-100*(13.8/6.0-1)) > 0.01 {
		t.Fatalf("host noise %+v, want direct tcp's middle rounds, 6.0 to 13.8 µs", noise)
	}
	for _, p := range []Path{directTCP, directUNIX, goroutine, epollUNIX} {
		if r := find(t, paths, p); !r.Stable {
			t.Errorf("%s flagged: %q", r.Name, r.UnstableReason)
		}
	}
	// Against a quiet yardstick the same epoll rounds, two clusters 1.8
	// times apart,, are the path's own.
	all[0] = pathSeries(directTCP, 1, 6, 6.0, 6.1, 5.9, 6.2, 6.0, 5.9)
	paths, _ = Analyze(all, 1, false)
	e := find(t, paths, epollTCP)
	if e.Stable || e.Instability == nil || e.Instability.Noise == nil || math.Round(e.Instability.Noise.SpreadPct) != 79 ||
		math.Round(e.Instability.Noise.HostPct) != 4 || e.Instability.Noise.Control != "direct unix" {
		t.Errorf("epoll tcp->tcp: stable %v %+v", e.Stable, e.Instability)
	}
	if r := find(t, paths, epollUNIX); !r.Stable {
		t.Errorf("epoll unix->tcp, one odd round: flagged %q", r.UnstableReason)
	}
	noise = HostNoiseOf(paths)
	if noise[0].Flagged != 1 || noise[0].Relays != 3 || math.Abs(noise[0].LimitPct-35) > 1e-9 {
		t.Errorf("host noise %+v, want 1 of 3 relays flagged past 35%%", noise[0])
	}
}

// A burst of the host's that slowed two rounds of most relay paths, and
// missed the direct paths measured at other moments of the same cycles,
// is the host's: those rounds are left out of each relay path's spread,
// and none is flagged for them.
func TestAnalyzeLeavesOutTheHostsSlowRounds(t *testing.T) {
	all := []Series{
		pathSeries(directTCP, 1, 6, 5.7, 5.8, 5.7, 5.9, 5.8, 5.7),
		pathSeries(directUNIX, 1, 5, 4.6, 4.6, 4.7, 4.6, 4.6, 4.5),
	}
	relays := []Relay{Goroutine, Epoll, Splice, Sockmap}
	for i, r := range relays {
		v := 10 + float64(i)
		all = append(all, pathSeries(Path{Relay: r, Client: TCP, Upstream: TCP, Hops: 1}, 1, v, v, v, 6*v, v, 6*v, v))
	}
	all = append(all, pathSeries(Path{Relay: Socat, Client: TCP, Upstream: TCP, Hops: 1}, 1, 15, 15, 15.1, 15.2, 15, 14.9, 15))
	paths, _ := Analyze(all, 1, false)
	for _, p := range paths {
		if !p.Stable {
			t.Errorf("%s flagged: %q", p.Name, p.UnstableReason)
		}
	}
	noise := HostNoiseOf(paths)
	if len(noise) != 1 || !slices.Equal(noise[0].SlowRounds, []int{3, 5}) {
		t.Errorf("host noise %+v, want rounds 3 and 5 slow", noise)
	}
}
