package hop

// Instability is why a path's rounds were flagged (Stable false), as
// findings: package present says it in PathResult.UnstableReason. Either
// the path's own figures disagreed (Judged, with the likely Cause), or its
// rounds agreed but moved with the machine's states (Moved), or its hop
// moved between runs of the same command (Across); Noise, where set, says
// first that its rounds spread past the host's own noise.
type Instability struct {
	Noise  *NoiseExcess
	Judged *Judged
	Cause  *Cause
	Moved  *MovedWithMachine
	Across *AcrossFlag
}

// NoiseExcess is a path's rounds spreading SpreadPct (max/min but the
// extremes) past what the stage's direct paths spread, HostPct, as
// Control measured it.
type NoiseExcess struct {
	SpreadPct, HostPct float64
	Control            string
}

// Judged is how a path's figures, one a round, disagreed (judge).
type Judged struct {
	// State is the host's state ("fast", "slow") within whose rounds a
	// control's round p50s disagreed; "" where all rounds were judged.
	State string
	// Paired is the baseline whose paired rounds the figures are the
	// path's round p50s over (ratios); "" where they are round p50s (µs).
	Paired string
	Values []float64
	Kind   JudgedKind
	MaxMin float64 // the figures' max over min (DisagreeRatio, DisagreeSpread)
	Limit  float64 // the bound MaxMin is over
	// Below and Above are the two clusters (DisagreeClusters).
	Below, Above []float64
}

// A JudgedKind is how figures disagreed.
type JudgedKind int

// The ways figures of one path disagree (judge).
const (
	DisagreeRatio    JudgedKind = iota + 1 // the slowest over the fastest past maxRoundRatio
	DisagreeSpread                         // past maxRoundSpread, in no two clusters
	DisagreeClusters                       // two clusters
)

// Cause is what most plausibly moved a path's rounds.
type Cause struct {
	Kind CauseKind
	// Component and CPUs are the component whose CPUs differed between
	// rounds, and those CPUs ("0|1") (CausePlacement).
	Component, CPUs string
	// Pct is how far throughput agreed (CauseTwoHumped), or how far the
	// ratio to the machine's figure held (CauseReference,
	// CauseClientCPU), in percent.
	Pct float64
	// Reference is the path measured in the same cycles whose rounds
	// moved with this one's (CauseReference); Values its round p50s, or
	// the client's CPU time per request (CauseClientCPU), µs.
	Reference string
	Values    []float64
}

// A CauseKind is what moved a path's rounds.
type CauseKind int

// The likely causes of a path's rounds disagreeing.
const (
	CauseUnpinned  CauseKind = iota + 1 // regime none: the scheduler placed the components
	CausePlacement                      // a component ran on other CPUs in some rounds
	CauseTwoHumped                      // the round trips are two-humped, throughput held
	CauseMigration                      // none of the above: migration or another tenant
	CauseTrace                          // what the traced requests show (Trace.Found)
	CauseReference                      // the machine: a path beside it moved with it
	CauseClientCPU                      // the machine: the client's CPU time per request moved with it
)

// MovedWithMachine is a path whose own rounds agreed by the tests of
// stability but spread MaxMin (past Limit) while its Baseline's rounds
// (BaselineUs) moved with the client's CPU time per request: its figure
// is a median over two states of the machine.
type MovedWithMachine struct {
	Values     []float64 // the path's kept round p50s
	MaxMin     float64
	Limit      float64
	Baseline   string
	BaselineUs []float64
}

// AcrossFlag is a path whose hop moved between runs of the same command
// (its AcrossRuns holds the figures); Baseline names its direct baseline
// where the host's speed in those runs was known (AcrossRuns.HostScale).
type AcrossFlag struct {
	Baseline string
}
