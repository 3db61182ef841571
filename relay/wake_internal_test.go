package relay

import (
	"testing"
	"time"
)

// TestChooseWake: explicit options win, auto sleeps on one CPU and adapts
// on more, and every choice names its rule.
func TestChooseWake(t *testing.T) {
	for _, tc := range []struct {
		cfg      Config
		cpus     int
		strategy string
		adaptive bool
		rule     WakeRule
	}{
		{Config{}, 1, StrategyOwn, false, WakeAutoOwn},
		{Config{}, 2, "sleep", false, WakeAutoFew},
		{Config{}, AdaptiveCPUs - 1, "sleep", false, WakeAutoFew},
		{Config{}, AdaptiveCPUs, "adaptive", true, WakeAutoMany},
		{Config{Wake: WakeAuto}, 64, "adaptive", true, WakeAutoMany},
		{Config{Wake: WakeSleep}, 8, "sleep", false, WakeBySleep},
		{Config{Wake: WakeAdaptive}, 1, "adaptive", true, WakeByAdaptive},
		{Config{Spin: true}, 1, "spin", false, WakeBySpin},
		{Config{BusyPoll: 50 * time.Microsecond}, 2, "busy-poll 50µs", false, WakeByBusyPoll},
	} {
		w := chooseWake(tc.cfg, tc.cpus)
		if w.Strategy != tc.strategy || w.adaptive != tc.adaptive || w.Rule != tc.rule {
			t.Errorf("%+v on %d CPUs: %+v, want %s (adaptive %v) by rule %d", tc.cfg, tc.cpus, w, tc.strategy, tc.adaptive, tc.rule)
		}
		if auto := tc.rule >= WakeAutoOwn; auto && w.CPUs != tc.cpus || !auto && w.CPUs != 0 {
			t.Errorf("%+v on %d CPUs: rule read %d CPUs", tc.cfg, tc.cpus, w.CPUs)
		}
	}
	if w := chooseWake(Config{}, 1); !w.watch {
		t.Errorf("auto on 1 CPU does not watch its CPU")
	}
	// The poll after an event: the longer one only where the CPU is watched.
	for _, tc := range []struct {
		cfg  Config
		cpus int
		spin time.Duration
	}{
		{Config{}, 1, OwnSpin},
		{Config{}, AdaptiveCPUs, AdaptiveSpin},
		{Config{Wake: WakeAdaptive}, 1, AdaptiveSpin},
	} {
		w := chooseWake(tc.cfg, tc.cpus)
		if w.spin != tc.spin {
			t.Errorf("%+v on %d CPUs polls %v after an event, want %v", tc.cfg, tc.cpus, w.spin, tc.spin)
		}
	}
	for _, c := range []Config{{Wake: WakeSleep}, {Wake: WakeAdaptive}, {Spin: true}} {
		if w := chooseWake(c, 1); w.watch {
			t.Errorf("%+v on 1 CPU watches its CPU: only auto does", c)
		}
	}
}

// TestSpinScore: spins go on while they catch two events in three, stop
// when they do not, and a probe that catches one starts them again.
func TestSpinScore(t *testing.T) {
	var s spinScore
	if !s.spin() {
		t.Fatal("a new loop does not spin")
	}
	for range 100 {
		s.hit()
		s.hit()
		s.miss()
	}
	if !s.spin() {
		t.Error("two hits in three stopped the spins")
	}
	for range 10 {
		s.hit()
		s.miss()
	}
	if s.spin() {
		t.Fatal("one hit in two kept the spins")
	}
	probes := 0
	for range 10 * probeEvery {
		if s.spin() {
			probes++
			s.miss()
		}
	}
	if probes != 10 {
		t.Errorf("%d probes in %d sleeps, want 10", probes, 10*probeEvery)
	}
	for !s.spin() {
	}
	s.hit()
	if !s.spin() {
		t.Error("a probe that caught an event did not start the spins again")
	}
}
