package hop

import (
	"math"
	"testing"
)

// Three default runs on the 2-vCPU AMD guest, each steady in its own
// rounds: goroutine's spread hop read 55.7, 99.4 and 87.8 µs, epoll's
// packed one 32.1, 32.3 and 30.5.
func TestJudgeAcrossRuns(t *testing.T) {
	paths, _ := Analyze([]Series{
		pathSeries(directTCP, 1, 20, 19.8, 20.1, 19.9, 20.0),
		pathSeries(epollTCP, 1, 52, 51.9, 52.2, 52.0, 52.1),
		pathSeries(Path{Relay: Goroutine, Client: TCP, Upstream: TCP, Hops: 1}, 1, 76, 75.5, 75.8, 75.7, 75.6),
		pathSeries(Path{Relay: Splice, Client: TCP, Upstream: TCP, Hops: 1}, 1, 55, 54.8, 55.1, 54.9, 55.0),
	}, 1, false)
	for _, p := range paths {
		if !p.Stable {
			t.Fatalf("%s flagged by its own rounds: %q", p.Name, p.UnstableReason)
		}
	}
	epoll := find(t, paths, epollTCP)
	gor := find(t, paths, Path{Relay: Goroutine, Client: TCP, Upstream: TCP, Hops: 1})
	splice := find(t, paths, Path{Relay: Splice, Client: TCP, Upstream: TCP, Hops: 1})
	past := Past{Added: map[string][]float64{
		PathKey(epoll):                     {32.3 * epoll.AddedUs.P50 / 32.1, 30.5 * epoll.AddedUs.P50 / 32.1},
		PathKey(gor):                       {99.4 * gor.AddedUs.P50 / 55.7, 87.8 * gor.AddedUs.P50 / 55.7},
		PathKey(splice):                    {30}, // one earlier run says nothing
		PathKey(find(t, paths, directTCP)): {1, 1},
	}}
	judged, flagged, moved := JudgeAcrossRuns(paths, past)
	if judged != 2 || flagged != 1 || moved != nil {
		t.Errorf("judged %d, flagged %d, host moved %v; want 2, 1 and none", judged, flagged, moved)
	}
	for _, p := range paths {
		switch p.Relay {
		case Goroutine:
			a := p.AcrossRuns
			if p.Stable || p.Instability == nil || p.Instability.Across == nil || a == nil || a.Runs != 3 || a.OffPct > -35 || a.OffPct < -38 {
				t.Errorf("goroutine: stable %v %q, across %+v; want flagged, 36.6%% under the median of 3", p.Stable, p.UnstableReason, a)
			}
		case Epoll:
			if !p.Stable || p.AcrossRuns == nil || p.AcrossRuns.OffPct > 15 || p.AcrossRuns.OffPct < -15 {
				t.Errorf("epoll: stable %v, across %+v; want judged and kept", p.Stable, p.AcrossRuns)
			}
		default:
			if !p.Stable || p.AcrossRuns != nil {
				t.Errorf("%s: stable %v, across %+v; want not judged", p.Name, p.Stable, p.AcrossRuns)
			}
		}
	}
}

// The host ran slower for a whole stage of one run of three on the AMD
// guest: direct tcp spread 25.8 µs against 19.0 and 19.8, every run steady
// in its own rounds, and sockmap's hop 13.2 µs against 10.0 and 10.1, in
// proportion to the control. The rounds below are shaped on those figures
// (the control 1.35 times its earlier p50s); judged at the host's speed,
// sockmap holds.
func TestJudgeAcrossRunsAtTheHostsSpeed(t *testing.T) {
	sockmap := Path{Relay: Sockmap, Client: TCP, Upstream: TCP, Hops: 1}
	gor := Path{Relay: Goroutine, Client: TCP, Upstream: TCP, Hops: 1}
	paths, _ := Analyze([]Series{
		pathSeries(directTCP, 1, 25.9, 25.7, 25.6, 25.8, 25.7),
		pathSeries(sockmap, 1, 39, 38.9, 38.8, 39.0, 38.9),
		pathSeries(gor, 1, 156, 155.7, 155.9, 155.6, 155.8), // 130 µs: 97 at the host's earlier speed, against 71-72
		pathSeries(epollTCP, 1, 58.2, 58.1, 58.3, 58.0, 58.2),
	}, 1, false)
	past := Past{
		Added: map[string][]float64{
			PathKey(find(t, paths, sockmap)):  {10.0, 10.1},
			PathKey(find(t, paths, gor)):      {72.0, 71.0},
			PathKey(find(t, paths, epollTCP)): {32.0, 33.0},
		},
		Control: map[string][]float64{PathKey(find(t, paths, directTCP)): {19.2, 19.0}},
	}
	judged, flagged, moved := JudgeAcrossRuns(paths, past)
	if judged != 3 || flagged != 1 {
		t.Errorf("judged %d, flagged %d; want 3 and 1", judged, flagged)
	}
	if len(moved) != 1 || moved[0].Control != "direct tcp" || moved[0].P50Us != 25.7 || moved[0].PastMedianUs < 19.09 || moved[0].PastMedianUs > 19.11 {
		t.Errorf("host moved %+v, want direct tcp at 25.7 µs against 19.1", moved)
	}
	for _, p := range paths {
		a := p.AcrossRuns
		switch p.Relay {
		case Sockmap:
			if !p.Stable || a == nil || a.OffPct < 15 || a.HostScale < 1.34 || a.HostScale > 1.35 || a.ScaledOffPct == nil || *a.ScaledOffPct > 15 || *a.ScaledOffPct < -15 {
				t.Errorf("sockmap: stable %v %q, across %+v: want kept, off by more than 15%% and within it at the host's speed", p.Stable, p.UnstableReason, a)
			}
		case Goroutine:
			if p.Stable || p.Instability == nil || p.Instability.Across == nil || p.Instability.Across.Baseline != "direct tcp" ||
				a == nil || a.ScaledOffPct == nil || math.Round(100*a.HostScale) != 135 {
				t.Errorf("goroutine: stable %v %q: want flagged, with the host's speed", p.Stable, p.UnstableReason)
			}
		case Epoll:
			// 32.4 µs, within 15% of 32.0 and 33.0 as measured: never scaled.
			if !p.Stable || a == nil || a.HostScale != 0 {
				t.Errorf("epoll: stable %v, across %+v: want kept on its own figure", p.Stable, a)
			}
		}
	}
	// One earlier control figure does not tell the host's speed.
	past.Control = map[string][]float64{PathKey(find(t, paths, directTCP)): {19.2}}
	paths, _ = Analyze([]Series{
		pathSeries(directTCP, 1, 25.9, 25.7, 25.6, 25.8, 25.7),
		pathSeries(sockmap, 1, 39, 38.9, 38.8, 39.0, 38.9),
	}, 1, false)
	if _, flagged, moved := JudgeAcrossRuns(paths, past); flagged != 1 || moved != nil {
		t.Errorf("one earlier control figure: flagged %d, host moved %v; want sockmap flagged, no move said", flagged, moved)
	}
}

// A hop of a few µs that moved by more than 15% but less than minAcrossUs
// between runs is not flagged: a tenth of a wake-up moves it that far.
func TestJudgeAcrossRunsSmallHop(t *testing.T) {
	paths, _ := Analyze([]Series{
		pathSeries(directTCP, 1, 6, 6.0, 6.1, 5.9, 6.0),
		pathSeries(epollTCP, 1, 13, 13.0, 13.1, 12.9, 13.0),
	}, 1, false)
	epoll := find(t, paths, epollTCP)
	past := Past{Added: map[string][]float64{PathKey(epoll): {8.2, 8.4}}}
	judged, flagged, _ := JudgeAcrossRuns(paths, past)
	if judged != 1 || flagged != 0 {
		t.Errorf("judged %d, flagged %d; want 1 and 0: 7.0 µs against 8.2 is 1.2 µs", judged, flagged)
	}
}
