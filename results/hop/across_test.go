package hop

import (
	"strings"
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
	past := map[string][]float64{
		PathKey(epoll):                     {32.3 * epoll.AddedUs.P50 / 32.1, 30.5 * epoll.AddedUs.P50 / 32.1},
		PathKey(gor):                       {99.4 * gor.AddedUs.P50 / 55.7, 87.8 * gor.AddedUs.P50 / 55.7},
		PathKey(splice):                    {30}, // one earlier run says nothing
		PathKey(find(t, paths, directTCP)): {1, 1},
	}
	judged, flagged := JudgeAcrossRuns(paths, past)
	if judged != 2 || flagged != 1 {
		t.Errorf("judged %d, flagged %d; want 2 and 1", judged, flagged)
	}
	for _, p := range paths {
		switch p.Relay {
		case Goroutine:
			a := p.AcrossRuns
			if p.Stable || !strings.Contains(p.UnstableReason, "moved between runs") || a == nil || a.Runs != 3 || a.OffPct > -35 || a.OffPct < -38 {
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
