package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/analysis/hop/hoptest"
	"github.com/hoplat/hoplat/internal/peer"
	"github.com/hoplat/hoplat/present"
	"github.com/hoplat/hoplat/probe"
	"github.com/hoplat/hoplat/probe/machine"
	"github.com/hoplat/hoplat/roles"
)

// shortConfig is a default run cut down to seconds, against the stand-ins.
func shortConfig(t *testing.T, relays ...hop.Relay) Config {
	cfg := DefaultConfig()
	cfg.Relays = relays
	cfg.Time = 150 * time.Millisecond
	cfg.Warmup = 0
	cfg.Rounds = 3
	cfg.Discard = 1
	cfg.Locate = fakeLocator(fakeBin(t), false)
	cfg.TempRoot = t.TempDir()
	cfg.Probe = quickProbe
	// One regime, unpinned, keeps these tests about what they test; the
	// regimes have tests of their own.
	cfg.Regimes = []Regime{{Name: RegimeNone}}
	cfg.ConnectTime = 50 * time.Millisecond
	// Rounds of the time given, unsized, and untraced: sizing and tracing
	// have tests of their own.
	cfg.RoundRequests = 0
	cfg.Trace = false
	return cfg
}

// quickProbe is the real probe cut to a few milliseconds: its figures are
// noise, but the report carries them as a run's would.
func quickProbe(ctx context.Context) (machine.Machine, error) {
	return probe.Run(ctx, probe.Options{Rounds: 1, RoundTime: 2 * time.Millisecond})
}

// children lists the processes whose parent is this test process.
func children(t *testing.T) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	me := os.Getpid()
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) > 1 && fields[1] == strconv.Itoa(me) {
			out = append(out, pid)
		}
	}
	return out
}

// runClean runs cfg, failing the test on an error, and checks that the run
// left nothing behind.
func runClean(t *testing.T, cfg Config) *hop.Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	nothingLeft(t, cfg.TempRoot)
	return rep
}

// nothingLeft checks that a run left no process and no temp dir (and so no
// UNIX socket file) behind.
func nothingLeft(t *testing.T, tempRoot string) {
	t.Helper()
	if pids := children(t); len(pids) > 0 {
		t.Errorf("processes left behind: %v", pids)
	}
	ents, err := os.ReadDir(tempRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		t.Errorf("left behind in the temp root: %s", e.Name())
	}
}

func TestRunDefaultWithStandIns(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Goroutine, hop.Epoll, hop.Socat, hop.HAProxy)
	cfg.Stats = true
	var progress bytes.Buffer
	cfg.Progress = present.NewProgress(&progress, present.ProgressPaths)
	rep := runClean(t, cfg)
	if len(rep.Paths) != 6 {
		t.Fatalf("%d paths, want direct, goroutine and epoll on two client legs", len(rep.Paths))
	}
	if len(rep.Skipped) != 3 || !strings.Contains(rep.Skipped[0].Reason, "make deps") {
		t.Errorf("skipped %+v, want socat twice and haproxy with the install hint", rep.Skipped)
	}
	for _, p := range rep.Paths {
		if p.TPS <= 0 || p.Hist == nil || p.Errors != 0 || p.Failed != 0 || len(p.Rounds) != 3 {
			t.Errorf("%s: tps %v hist %v errors %d failed %d rounds %d", p.Name, p.TPS, p.Hist != nil, p.Errors, p.Failed, len(p.Rounds))
		}
		if p.AddedUs == nil {
			t.Errorf("%s: no added latency", p.Name)
		}
		if p.Relay != hop.Direct && (p.RelayUs == nil || *p.RelayUs != 4) {
			t.Errorf("%s: relay residence %v, want the stand-in's 4 µs", p.Name, p.RelayUs)
		}
	}
	if rep.Env.Pinning["client workers"] != "0-1" {
		t.Errorf("pinning %v lacks the client's", rep.Env.Pinning)
	}
	var js bytes.Buffer
	present.WriteJSON(&js, rep)
	if err := hoptest.CheckExplained(js.Bytes()); err != nil {
		t.Error(err)
	}
	if rep.Machine == nil || rep.Machine.Wake.SameCPU <= 0 {
		t.Errorf("machine %+v, want the probe's figures", rep.Machine)
	}
	for _, want := range []string{"probing the machine", "machine: ", "round 1/3 (warm-up)", "round 3/3", "epoll unix->tcp", "left", "skip socat tcp->tcp"} {
		if !strings.Contains(progress.String(), want) {
			t.Errorf("progress lacks %q:\n%s", want, progress.String())
		}
	}
	for _, line := range strings.Split(progress.String(), "\n") {
		if n := len([]rune(line)); n > present.ProgressWidth {
			t.Errorf("progress line of %d columns, want at most %d: %q", n, present.ProgressWidth, line)
		}
	}
}

// socat and HAProxy, when installed, start from their generated command
// line and config, are probed ready, and carry traffic.
func TestRunSocatAndHAProxy(t *testing.T) {
	peer.Require(t, "socat")
	peer.Require(t, "haproxy")
	cfg := shortConfig(t, hop.Direct, hop.Socat, hop.HAProxy)
	cfg.Locate = fakeLocator(fakeBin(t), true)
	rep := runClean(t, cfg)
	if len(rep.Skipped) != 0 || len(rep.Paths) != 5 {
		t.Fatalf("paths %d, skipped %+v", len(rep.Paths), rep.Skipped)
	}
	for _, p := range rep.Paths {
		if p.TPS <= 0 || p.Failed != 0 {
			t.Errorf("%s: tps %v, failed rounds %d: %+v", p.Name, p.TPS, p.Failed, p.Rounds)
		}
	}
}

func TestRunChainAndThreadSweep(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Hops = []int{0, 1, 3}
	cfg.Threads = []int{1, 2}
	cfg.Time = 100 * time.Millisecond
	rep := runClean(t, cfg)
	if len(rep.Paths) != 6 {
		t.Errorf("%d path results, want 3 paths at 2 thread counts", len(rep.Paths))
	}
	if len(rep.Chains) != 2 {
		t.Fatalf("chains %+v, want one per thread count", rep.Chains)
	}
	for _, c := range rep.Chains {
		if len(c.Hops) != 3 || c.Points != 6 {
			t.Errorf("chain %+v", c)
		}
	}
	// Each thread count has its own relay figures, from its own rounds:
	// the stand-in relay holds a request 4 µs a hop per open connection.
	for _, p := range rep.Paths {
		if p.Relay == hop.Direct {
			continue
		}
		// Within 10%: a client's connections open one after another,
		// so its first requests pass while fewer are open. The figure is
		// the stand-in's count of open connections, not a clock's: only
		// the share of a round's requests made while the second
		// connection opens (one loopback connect against 100 ms) moves it.
		want := 4.0 * float64(p.Threads*p.Hops)
		if p.RelayUs == nil || math.Abs(*p.RelayUs-want) > 0.1*want {
			got := "none"
			if p.RelayUs != nil {
				got = fmt.Sprint(*p.RelayUs)
			}
			t.Errorf("%s at %d threads: relay residence %s, want %v µs", p.Name, p.Threads, got, want)
		}
		if p.RelayCPUUs == nil || *p.RelayCPUUs <= 0 {
			t.Errorf("%s at %d threads: no relay CPU of its own", p.Name, p.Threads)
		}
	}
	var js bytes.Buffer
	present.WriteJSON(&js, rep)
	if err := hoptest.CheckJSON(js.Bytes()); err != nil {
		t.Error(err)
	}
}

// signalWriter calls fn once, at the first write that contains marker.
type signalWriter struct {
	once   sync.Once
	marker string
	fn     func()
}

func (w *signalWriter) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(w.marker)) {
		w.once.Do(w.fn)
	}
	return len(b), nil
}

// Cancelling mid-run (hopbench's Ctrl-C) stops every component and removes
// every socket file before Run returns.
func TestRunCancelLeavesNothingBehind(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Goroutine, hop.Epoll)
	cfg.Time = 5 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Interrupt while the first pingpong runs (or, on a slow machine, just
	// before): the invariant holds wherever the interruption lands.
	cfg.Progress = present.NewProgress(&signalWriter{marker: "round 1/", fn: func() { time.AfterFunc(300*time.Millisecond, cancel) }}, present.ProgressRounds)
	began := time.Now()
	_, err := Run(ctx, cfg)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v, want context.Canceled", err)
	}
	// A Run that ignored the cancel would run the 5 s round out, then the
	// others; one that heeds it stops processes it started, in tens of ms
	// on any machine: 5 s parts the two by two orders of magnitude.
	if d := time.Since(began); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}
	nothingLeft(t, cfg.TempRoot)
}

func TestRunMissingResponder(t *testing.T) {
	cfg := shortConfig(t, hop.Direct)
	cfg.Locate = func(name string) (string, error) {
		if name == "pingpong" {
			return "/bin/true", nil
		}
		return "", errors.New("pongd not found")
	}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "pongd") {
		t.Errorf("Run without pongd: %v", err)
	}
	nothingLeft(t, cfg.TempRoot)
}

// --placement pins every component as it starts, and the report says what
// each obtained.
func TestRunPlacement(t *testing.T) {
	online, err := affinity.OnlineCPUs()
	if err != nil || online.Len() < 2 {
		t.Skip("needs two online CPUs")
	}
	cpus := online.CPUs()
	spec := fmt.Sprintf("client=%d relay=%d server=%d", cpus[0], cpus[1], cpus[1])
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Rounds, cfg.Discard = 1, 0
	cfg.Regimes = nil
	if cfg.Placement, err = affinity.ParsePlacement(spec, online); err != nil {
		t.Fatal(err)
	}
	rep := runClean(t, cfg)
	want := map[string]string{"client": strconv.Itoa(cpus[0]), "relay": strconv.Itoa(cpus[1]), "server": strconv.Itoa(cpus[1])}
	for k, v := range want {
		if rep.Env.Pinning[k] != v {
			t.Errorf("pinning %v: %s should be %s", rep.Env.Pinning, k, v)
		}
	}
	if rep.Config.Placement != spec {
		t.Errorf("config placement %q", rep.Config.Placement)
	}
	for _, p := range rep.Paths {
		if p.Regime != RegimeCustom || p.Name != p.Path().Name() {
			t.Errorf("%s: regime %q, want custom and a name without it", p.Name, p.Regime)
		}
		for k, v := range want {
			if k == roles.Relay && p.Relay == hop.Direct {
				continue
			}
			if p.Placement[k] != v {
				t.Errorf("%s: placement %v: %s should be %s", p.Name, p.Placement, k, v)
			}
		}
	}
}

// By default every path runs packed and spread, named so, each regime
// with its own baseline, and says what each component obtained.
func TestRunRegimes(t *testing.T) {
	cpus, err := affinity.ThreadCPUs()
	if err != nil || cpus.Len() < 2 {
		t.Skip("needs two CPUs")
	}
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Rounds, cfg.Discard = 2, 1
	cfg.Regimes = nil
	var progress bytes.Buffer
	cfg.Progress = present.NewProgress(&progress, present.ProgressRounds)
	rep := runClean(t, cfg)
	first, second := strconv.Itoa(cpus.CPUs()[0]), strconv.Itoa(cpus.CPUs()[1])
	want := map[string]map[string]string{
		"direct tcp packed":     {"client": first, "server": first},
		"epoll tcp->tcp packed": {"client": first, "relay": first, "server": first},
		"direct tcp spread":     {"client": first, "server": first},
		"epoll tcp->tcp spread": {"client": first, "relay": second, "server": first},
	}
	if len(rep.Paths) != len(want) {
		t.Fatalf("%d paths, want %d", len(rep.Paths), len(want))
	}
	for _, p := range rep.Paths {
		w, ok := want[p.Name]
		if !ok {
			t.Errorf("unexpected path %q", p.Name)
			continue
		}
		if fmt.Sprint(p.Placement) != fmt.Sprint(w) {
			t.Errorf("%s: placement %v, want %v", p.Name, p.Placement, w)
		}
		if p.Relay != hop.Direct && (p.AddedUs == nil || p.AddedUs.Baseline != "direct tcp "+p.Regime) {
			t.Errorf("%s: added %+v, want against its own regime's direct path", p.Name, p.AddedUs)
		}
		if p.Connect == nil || p.Connect.N == 0 {
			t.Errorf("%s: no connect-only series", p.Name)
		}
		if p.Relay != hop.Direct && (p.RelayCPUUs == nil || *p.RelayCPUUs <= 0 || p.Decomposition == nil || p.ExplainedPct == nil) {
			t.Errorf("%s: relay CPU %v, decomposition %+v: want the relay's CPU per request and the split", p.Name, p.RelayCPUUs, p.Decomposition)
		}
		// The client's and the server's CPU per request, read on every
		// path; the split takes the baseline's off.
		if e := p.Endpoints; e == nil || e.Error != "" || !finitePositive(e.ClientCPUUs) || !finitePositive(e.ServerCPUUs) {
			t.Errorf("%s: endpoints %+v: want the client's and the server's CPU per request", p.Name, e)
		}
		// Packed, every wake-up stays on the CPU, and the split adds the
		// endpoints' share; spread, it is in the cross-CPU wake-ups.
		if d := p.Decomposition; p.Relay != hop.Direct && p.Regime == RegimePacked && d != nil && (d.Endpoints == nil || math.IsNaN(*d.Endpoints) || math.IsInf(*d.Endpoints, 0)) {
			t.Errorf("%s: decomposition %+v: want a finite endpoints share", p.Name, d)
		}
	}
	if len(rep.Regimes) != 2 || rep.Regimes[0].Name != RegimePacked || rep.Regimes[1].Name != RegimeSpread {
		t.Fatalf("regimes %+v", rep.Regimes)
	}
	if places := rep.Regimes[1].Places; cpus.Len() == 2 && (places == nil ||
		!slices.Contains(places.Components, hop.ComponentCPUs{Component: roles.Client, CPUs: first}) ||
		!slices.Contains(places.Components, hop.ComponentCPUs{Component: roles.Server, CPUs: first})) {
		t.Errorf("spread on two CPUs does not put client and server on CPU %s: %+v", first, places)
	}
	for _, w := range []string{"packed round 2/2", "spread round 1/2 (warm-up)"} {
		if !strings.Contains(progress.String(), w) {
			t.Errorf("progress lacks %q", w)
		}
	}
}

// A relay that fails as it stops does not void the figures: the report
// carries a warning.
func TestRunStopFailureIsAWarning(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Epoll)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Rounds, cfg.Discard = 1, 0
	cfg.RelayLock = "global"
	rep := runClean(t, cfg)
	if len(rep.Paths) != 2 || len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "exit status 3") {
		t.Errorf("paths %d, warnings %q", len(rep.Paths), rep.Warnings)
	}
}

// A placement changed between rounds splits a path's rounds in two: the
// report flags the path unstable and names the change as the cause.
func TestRunForcedBimodalIsTheHostsNoise(t *testing.T) {
	cpus, err := affinity.ThreadCPUs()
	if err != nil || cpus.Len() < 2 {
		t.Skip("needs two CPUs")
	}
	list := cpus.CPUs()
	cfg := shortConfig(t, hop.Direct)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.Rounds, cfg.Discard = 5, 1
	cfg.Regimes = nil
	spec := fmt.Sprintf("client=%d server=%d", list[0], list[0])
	if cfg.Placement, err = affinity.ParsePlacement(spec, cpus); err != nil {
		t.Fatal(err)
	}
	// Odd rounds move the client to the second CPU. Which move splits the
	// rounds depends on the machine, so the runs alternate the two:
	//   - four connections: on one CPU each request queues behind the
	//     others' turns of client and server, which a second CPU runs
	//     side by side (rounds of 42.6, 98.0, 42.6 and 105 µs on a 2-vCPU
	//     AMD guest with cpuidle menu, whose cross-CPU wake-up is ~3 µs),
	//     but where that wake-up costs ~40 µs (haltpoll) the two cancel:
	//     20.0, 22.5, 20.3, 22.4 µs;
	//   - one connection: the move adds a cross-CPU wake-up each way,
	//     several times the round trip where it costs ~40 µs.
	// A run whose rounds did not split is made again with the other, up
	// to four; a run that split must be flagged with the move as its
	// cause.
	var p hop.PathResult
	for attempt := 1; attempt <= 4; attempt++ {
		cfg.Threads = []int{4}
		if attempt%2 == 0 {
			cfg.Threads = []int{1}
		}
		round := 0
		b := &bench{measure: func(ctx context.Context, argv, env []string, c affinity.CPUSet) (hop.Sample, error) {
			if round%2 == 1 {
				c = affinity.NewCPUSet(list[1])
			}
			round++
			return RunClient(ctx, argv, env, c)
		}}
		rep, err := b.run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		nothingLeft(t, cfg.TempRoot)
		p = rep.Paths[0]
		if !strings.Contains(p.Placement["client"], "|") {
			t.Fatalf("placement %v: the client's two CPUs not read back", p.Placement)
		}
		lo, hi := slices.Min(p.RoundsP50Us), slices.Max(p.RoundsP50Us)
		if hi < 1.3*lo {
			t.Logf("run %d (%d connections): the rounds did not split: %v", attempt, cfg.Threads[0], p.RoundsP50Us)
			continue
		}
		// The direct path is the yardstick: never flagged, its spread is
		// the host's noise, said once.
		if !p.Stable {
			t.Errorf("direct path flagged: %q", p.UnstableReason)
		}
		if len(rep.HostNoise) != 1 || rep.HostNoise[0].Control != p.Name || rep.HostNoise[0].SpreadPct < 100*(hi/lo-1)-0.01 {
			t.Errorf("host_noise %+v, want %s's spread of rounds %v", rep.HostNoise, p.Name, p.RoundsP50Us)
		}
		t.Logf("run %d: rounds %v, host noise %+v", attempt, p.RoundsP50Us, rep.HostNoise)
		return
	}
	t.Errorf("client moved between rounds in four runs, of 4 and 1 connections, and their rounds never split: the last %v, placement %v", p.RoundsP50Us, p.Placement)
}

func finitePositive(v float64) bool { return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) }

// A path missing in every stage is said to be skipped once, in the progress
// as in the report, not once per stage.
func TestRunSaysASkipOnce(t *testing.T) {
	cfg := shortConfig(t, hop.Direct, hop.Socat)
	cfg.Transports = []hop.Transport{hop.TCP}
	cfg.ServiceTimes = []time.Duration{0, 20 * time.Microsecond}
	cfg.Rounds, cfg.Time = 2, 50*time.Millisecond
	var progress bytes.Buffer
	cfg.Progress = present.NewProgress(&progress, present.ProgressRounds)
	rep := runClean(t, cfg)
	if n := strings.Count(progress.String(), "skip socat tcp->tcp"); n != 1 || len(rep.Skipped) != 1 {
		t.Errorf("over two stages the skip was said %d times and reported %d, want once each:\n%s", n, len(rep.Skipped), progress.String())
	}
	if !strings.Contains(progress.String(), "stage 2/2") {
		t.Errorf("progress shows no second stage:\n%s", progress.String())
	}
}

// testSignal is a cancellation cause that names its signal, as
// cli.Interrupted does.
type testSignal struct{}

func (testSignal) Error() string      { return "interrupted (test)" }
func (testSignal) SignalName() string { return "SIGTEST" }

// Cancelled after some rounds (hopbench's first Ctrl-C), Run returns the
// report of the rounds completed, marked partial: the step cut short is
// dropped, each path keeps its own completed rounds, the rows not reached
// are unmeasured, and nothing is left running. Cancelled before any round
// was kept, it returns ctx's error.
func TestRunInterruptedKeepsRounds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stages   []time.Duration
		cancelAt int       // the measurement the signal lands in, from 1
		rounds   []int     // rounds each row keeps, in report order
		stop     *hop.Stop // where the report says it stopped
	}{
		// Two cells: measurements 1-6 are rounds 1-3; the 8th is
		// epoll's fourth, cut short, direct's fourth already done.
		{"mid-round", []time.Duration{0}, 8, []int{4, 3},
			&hop.Stop{Cause: testSignal{}, Round: 3, Rounds: 5, Stages: 1, Regime: "none"}},
		{"between rounds", []time.Duration{0}, 7, []int{3, 3},
			&hop.Stop{Cause: testSignal{}, Round: 3, Rounds: 5, Stages: 1, Regime: "none"}},
		{"second stage not reached", []time.Duration{0, 20 * time.Microsecond}, 5, []int{2, 2, 0, 0},
			&hop.Stop{Cause: testSignal{}, Round: 2, Rounds: 5, Stage: 0, Stages: 2, Regime: "none"}},
		{"in the warm-up", []time.Duration{0}, 2, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := shortConfig(t, hop.Direct, hop.Epoll)
			cfg.Transports = []hop.Transport{hop.TCP}
			cfg.Time, cfg.Rounds = 50*time.Millisecond, 5
			cfg.ServiceTimes = tc.stages
			ctx, cancel := context.WithCancelCause(context.Background())
			defer cancel(nil)
			calls := 0
			b := &bench{measure: func(ctx context.Context, argv, env []string, c affinity.CPUSet) (hop.Sample, error) {
				if calls++; calls == tc.cancelAt {
					cancel(testSignal{})
				}
				return RunClient(ctx, argv, env, c)
			}}
			rep, err := b.run(ctx, cfg)
			nothingLeft(t, cfg.TempRoot)
			if tc.rounds == nil {
				if rep != nil || !errors.Is(err, context.Canceled) {
					t.Fatalf("no round kept: Run = %v, %v; want no report and context.Canceled", rep, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !rep.Partial || rep.Stop == nil || *rep.Stop != *tc.stop {
				t.Errorf("partial %v, stopped %+v; want true, %+v", rep.Partial, rep.Stop, tc.stop)
			}
			if len(rep.Paths) != len(tc.rounds) {
				t.Fatalf("%d rows, want %d: %+v", len(rep.Paths), len(tc.rounds), rep.Paths)
			}
			for i, p := range rep.Paths {
				if len(p.Rounds) != tc.rounds[i] {
					t.Errorf("%s (service %v µs): %d rounds, want %d", p.Name, p.ServiceTimeUs, len(p.Rounds), tc.rounds[i])
				}
				if p.Unmeasured != (tc.rounds[i] <= cfg.Discard) || p.Measured() == p.Unmeasured {
					t.Errorf("%s: unmeasured %v measured %v with %d rounds", p.Name, p.Unmeasured, p.Measured(), len(p.Rounds))
				}
				// The cut step would stand last among the rounds kept. A
				// round before it that completed nothing is the machine's:
				// on a loaded one a reply now and then waits out a
				// retransmission timeout (200 ms), longer than these
				// 50 ms rounds.
				if n := len(p.Rounds); n > 0 && p.Rounds[n-1].Failed != "" {
					t.Errorf("%s: the last round failed (%s): the cut one must be dropped, not failed", p.Name, p.Rounds[n-1].Failed)
				}
			}
		})
	}
}
