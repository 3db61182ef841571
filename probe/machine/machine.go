package machine

import (
	"math"
	"slices"

	"github.com/hoplat/hoplat/stats"
)

// Machine is the "machine" object of hopbench's report: the constants a
// hop's added latency is split with, as package probe measures them, and
// the environment that explains them. Latencies are one way, in
// microseconds.
type Machine struct {
	Wake           WakeUS  `json:"wake_us"` // over a pipe: wake-up and switch, least kernel path
	Leg            LegUS   `json:"leg_us"`  // one loopback leg on one CPU, wake-up and switch excluded
	CPUIdle        CPUIdle `json:"cpuidle"`
	Virtualization string  `json:"virtualization"` // systemd-detect-virt's names; "none"; "unknown" for a hypervisor flag alone
	StealPct       float64 `json:"steal_pct"`      // over the probe; hopbench reports its whole run's
	SMT            bool    `json:"smt"`

	// WakeSocket is the same wake-up over a UNIX socket pair: Wake plus a
	// UNIX leg on one CPU, plus whatever crossing CPUs adds to it.
	WakeSocket WakeUS `json:"wake_socketpair_us"`
	// WakeProcess is the same-CPU wake-up over a pipe to another process
	// rather than a thread: Wake plus a switch of address space, which a
	// relay, a process of its own, pays twice a round trip beyond its legs.
	// WakeProcessSkipped says why it was not measured.
	WakeProcess        WakeUS   `json:"wake_process_us"`
	WakeProcessSkipped string   `json:"wake_process_skipped,omitempty"`
	Container          string   `json:"container,omitempty"`
	VirtSource         string   `json:"virtualization_source"`
	CPUFreqGovernor    string   `json:"cpufreq_governor"` // "" without cpufreq
	SMTSiblings        []string `json:"smt_siblings,omitempty"`
	IsolatedCPUs       string   `json:"isolated_cpus"`
	NoHZFullCPUs       string   `json:"nohz_full_cpus"`
	Clocksource        string   `json:"clocksource,omitempty"`
	// CPUs are the two the figures ran on: same-CPU figures on the first,
	// cross-CPU ones between both, whose relation (other-core,
	// smt-sibling, ...) a cross-CPU figure depends on.
	CPUs            []int  `json:"cpus"`
	CrossRelation   string `json:"cross_cpu_relation,omitempty"`
	CrossCPUSkipped string `json:"cross_cpu_skipped,omitempty"`
	// CrossSkip is why the probe measured no cross-CPU figure, nil when it
	// did; present words it into CrossCPUSkipped. A machine read back
	// from JSON has the words only.
	CrossSkip  *OneCPU  `json:"-"`
	Figures    []Figure `json:"figures"`
	Rounds     int      `json:"rounds"`
	DurationMS float64  `json:"duration_ms"`
	// States are the speeds the host ran at during the run's rounds,
	// where the control paths moved together between them (set by the
	// analysis, not by the probe); none when the host kept one speed.
	States []State `json:"states,omitempty"`
}

// State is one speed the host ran at during a run: the rounds of one
// stage that ran at it, and what shows it (the control paths' round
// p50s, moving together, and the other paths moving with them).
type State struct {
	Stage        string  `json:"stage"`          // the regime, and the sweep's values when swept
	Name         string  `json:"name"`           // fast or slow
	Rounds       []int   `json:"rounds"`         // round indices, as paths[].rounds[].index
	Control      string  `json:"control"`        // the control path whose rounds show it
	ControlP50Us float64 `json:"control_p50_us"` // median of the control's round p50s in these rounds
	Evidence     string  `json:"evidence"`
}

// OneCPU is why the probe ran on one CPU: one was asked for (Asked), or
// the process may run on CPU only.
type OneCPU struct {
	Asked bool
	CPU   int
}

// WakeUS is a one-way wake-up latency. CrossCPU is absent when the process
// may run on one CPU only (CrossCPUSkipped says so).
type WakeUS struct {
	SameCPU  float64 `json:"same_cpu"`
	CrossCPU float64 `json:"cross_cpu,omitempty"`
}

// LegUS is the one-way kernel path of a loopback socket on one CPU, beyond
// a pipe's wake-up and switch.
type LegUS struct {
	TCP  float64 `json:"tcp"`
	UNIX float64 `json:"unix"`
}

// CPUIdle is how the kernel idles its CPUs.
type CPUIdle struct {
	Governor string `json:"governor"`
	Driver   string `json:"driver"`
}

// Figure is one measured or derived constant with its spread over rounds.
type Figure struct {
	Name     string    `json:"name"` // "pipe same-cpu", "tcp leg", ...
	CPUs     string    `json:"cpus"`
	MedianUS float64   `json:"median_us"` // median of the round medians
	MinUS    float64   `json:"min_us"`    // of the round medians
	MaxUS    float64   `json:"max_us"`
	RoundsUS []float64 `json:"rounds_us"`
	Samples  int       `json:"samples"` // round trips timed over all rounds; 0 for a derived figure
	// P25US and P75US are the quartiles of the round medians: the
	// spread a reader should expect of the constant.
	P25US float64 `json:"p25_us"`
	P75US float64 `json:"p75_us"`
	// ModesUS holds the medians of the two groups the rounds fell in,
	// lower first, when they fell in two (see TwoModes); MedianUS then
	// describes neither, and a path priced with it is priced with
	// whichever mode the probe drew more often.
	ModesUS []float64 `json:"modes_us,omitempty"`
}

// NewFigure summarises one constant's round medians.
func NewFigure(name, cpus string, rounds []float64, samples int) Figure {
	f := Figure{Name: name, CPUs: cpus, RoundsUS: rounds, Samples: samples}
	if len(rounds) == 0 {
		return f
	}
	sorted := slices.Sorted(slices.Values(rounds))
	f.MinUS, f.MaxUS = sorted[0], sorted[len(sorted)-1]
	f.MedianUS = stats.MedianSorted(sorted)
	f.P25US, f.P75US = centi(stats.Quantile(sorted, 0.25)), centi(stats.Quantile(sorted, 0.75))
	if len(sorted) >= 4 {
		// One far trial is an outlier, not a mode: each group must
		// hold two.
		if lo, hi, ok := stats.TwoModes(sorted); ok && len(lo) >= 2 && len(hi) >= 2 {
			f.ModesUS = []float64{centi(stats.MedianSorted(lo)), centi(stats.MedianSorted(hi))}
		}
	}
	return f
}

// centi rounds to the hundredth of a microsecond, as the figures are kept.
func centi(v float64) float64 { return math.Round(v*100) / 100 }

// Figure returns the named figure, zero if absent.
func (m Machine) Figure(name string) Figure {
	for _, f := range m.Figures {
		if f.Name == name {
			return f
		}
	}
	return Figure{}
}

// RelayFloorUS is the least a user-space relay on the client's and the
// server's CPU can add to a TCP round trip: two more loopback legs (in to
// the relay and out of it, each way one) and two more switches, each to or
// from another process. Where the process wake-up was not measured it is
// priced as a thread's, and says less than a relay pays.
func (m Machine) RelayFloorUS() float64 {
	wake := m.WakeProcess.SameCPU
	if wake == 0 {
		wake = m.Wake.SameCPU
	}
	return 2 * (m.Leg.TCP + wake)
}
