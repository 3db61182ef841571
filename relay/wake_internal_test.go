package relay

import (
	"strings"
	"testing"
	"time"
)

// TestChooseWake: explicit options win, auto sleeps on one CPU and adapts
// on more, and every choice says why.
func TestChooseWake(t *testing.T) {
	for _, tc := range []struct {
		cfg      Config
		cpus     int
		strategy string
		adaptive bool
	}{
		{Config{}, 1, StrategyOwn, false},
		{Config{}, 2, "sleep", false},
		{Config{}, AdaptiveCPUs - 1, "sleep", false},
		{Config{}, AdaptiveCPUs, "adaptive", true},
		{Config{Wake: WakeAuto}, 64, "adaptive", true},
		{Config{Wake: WakeSleep}, 8, "sleep", false},
		{Config{Wake: WakeAdaptive}, 1, "adaptive", true},
		{Config{Spin: true}, 1, "spin", false},
		{Config{BusyPoll: 50 * time.Microsecond}, 2, "busy-poll 50µs", false},
	} {
		w := chooseWake(tc.cfg, tc.cpus)
		if w.Strategy != tc.strategy || w.adaptive != tc.adaptive || w.Why == "" {
			t.Errorf("%+v on %d CPUs: %+v, want %s (adaptive %v) with a reason", tc.cfg, tc.cpus, w, tc.strategy, tc.adaptive)
		}
	}
	if w := chooseWake(Config{}, 1); !strings.Contains(w.Why, "1 CPU") || !w.watch {
		t.Errorf("auto on 1 CPU says %q (watch %v): want the CPU count, and the CPU watched", w.Why, w.watch)
	}
	// The poll after an event: the longer one only where the CPU is watched,
	// and the reason names the one the loop runs.
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
		if w.spin != tc.spin || !strings.Contains(w.Why, tc.spin.String()) {
			t.Errorf("%+v on %d CPUs polls %v after an event (%q), want %v, said", tc.cfg, tc.cpus, w.spin, w.Why, tc.spin)
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
