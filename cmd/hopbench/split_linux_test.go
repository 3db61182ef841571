package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"testing"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/tracer"
)

// spinUs is the known cost the test gives a relay: long against what any
// relay spends per request, so that it shows whatever the machine.
const spinUs = 200

// Who holds the CPU is who costs, on any machine: packed, a relay that
// spins a set time on every request it forwards moves the traced split's
// relay parts, and the kernel's schedstat count of its time on CPU, by
// that time against the same relay without the spin, and moves them
// alike. How far split and count stand apart on an ordinary relay is the
// machine's as much as the tracer's (the report gives it per path,
// trace.schedstat_diff_pct, and warns beyond hop.SchedstatTolerancePct):
// here the real relays (epoll, splice, HAProxy) must carry the holder
// view, both counts and that figure, and the run its tracer floor.
//
// How far split and count may part on the spin is the test's own: a
// tenth of it, plus what the hypervisor stole over the run
// (machine.steal_pct), since with paravirtual steal accounting the
// kernel's count leaves stolen time out and the split's timestamps do
// not.
func TestIntegrationSplitHoldsKnownCost(t *testing.T) {
	peer.Integration(t, "real relays, traced")
	peer.Require(t, "haproxy")
	tr, err := tracer.Open(tracer.Config{})
	if errors.Is(err, errors.ErrUnsupported) {
		peer.Unavailable(t, err.Error())
	}
	if err != nil {
		t.Fatal(err)
	}
	tr.Close()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	relay := func(name string, spin time.Duration) []string {
		return []string{"--proxy", fmt.Sprintf("%s=env %s=%s GOMAXPROCS=1 %s {listen} {upstream}", name, costRelayEnv, spin, self)}
	}
	args := []string{"--paths", "direct,epoll,splice,haproxy", "--transports", "tcp", "--placement", "same-core",
		"--time", "500ms", "--runs", "3", "--discard", "1"}
	args = append(args, relay("cost0", 0)...)
	args = append(args, relay("cost200", spinUs*time.Microsecond)...)
	rep, _ := runJSON(t, args...)
	if rep.Tracer == nil || rep.Tracer.FloorPct == nil {
		t.Fatalf("tracer %+v: want floor_pct", rep.Tracer)
	}
	steal := 0.0
	if rep.Machine != nil {
		steal = rep.Machine.StealPct
	}
	t.Logf("floor %.1f%%, steal %.1f%%", *rep.Tracer.FloorPct, steal)
	split, count := map[hop.Relay]float64{}, map[hop.Relay]float64{}
	for _, p := range rep.Paths {
		if p.Relay == hop.Direct {
			continue
		}
		tc := p.Trace
		if tc == nil || tc.View != hop.ViewHolder || tc.SchedstatRelayCPUUs == nil || tc.SchedstatTracedRelayCPUUs == nil {
			t.Fatalf("%s: trace %+v, want the holder view with schedstat's counts, untraced and traced, beside it", p.Name, tc)
		}
		diff, ok := tc.SchedstatDiffPct()
		if !ok || tc.SchedstatDiff == nil || *tc.SchedstatDiff != diff {
			t.Fatalf("%s: schedstat_diff_pct %v, want %.1f", p.Name, tc.SchedstatDiff, diff)
		}
		// The split with its records, against the kernel's count of the
		// same round: both hold what tracing cost the relay.
		split[p.Relay] = tc.RelayCPUUs + tc.RelayRecordsUs
		count[p.Relay] = *tc.SchedstatTracedRelayCPUUs
		t.Logf("%s: split %.1f µs (records %.1f), schedstat %.1f traced, %.1f untraced (%+.1f%%), overhead %.1f%%",
			p.Name, split[p.Relay], tc.RelayRecordsUs, count[p.Relay], *tc.SchedstatRelayCPUUs, diff, tc.OverheadPct)
	}
	for _, r := range []hop.Relay{hop.Epoll, hop.Splice, hop.HAProxy, "cost0", "cost200"} {
		if _, ok := split[r]; !ok {
			t.Fatalf("no traced path of %s in %v", r, split)
		}
	}
	bySplit, byCount := split["cost200"]-split["cost0"], count["cost200"]-count["cost0"]
	tol := spinUs * (0.1 + steal/100)
	t.Logf("a %d µs spin: split +%.1f µs, schedstat +%.1f µs (tolerance %.1f)", spinUs, bySplit, byCount, tol)
	// The spin is timed by the clock: another task that preempts it (a
	// kworker, or anything else the machine runs on that CPU) takes its
	// turn out of the relay's, so the spin moves either figure by at most
	// its length, and at least by three quarters of it.
	for what, moved := range map[string]float64{"the split's relay parts": bySplit, "schedstat's count": byCount} {
		if moved < 0.75*spinUs || moved > spinUs+tol {
			t.Errorf("a %d µs spin per request moved %s by %.1f µs", spinUs, what, moved)
		}
	}
	if math.Abs(bySplit-byCount) > tol {
		t.Errorf("a %d µs spin: the split moved %.1f µs, schedstat %.1f: they do not charge it alike", spinUs, bySplit, byCount)
	}
}
