package event

import (
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/probe/machine"
)

// Event is one thing a run did that its progress tells: one of the types
// of this package.
type Event interface{ event() }

// Sink takes a run's events in the order they happen. The driver calls it
// from the run's goroutine, and with a line of a child's output
// (SysbenchLine) from the goroutine that copies that output, while the
// run's goroutine waits for the child.
type Sink interface{ Event(Event) }

// HostStep is a step package hosts took bringing the hosts up or down
// (namespaces made, binaries shipped, ...), passed on as it is.
type HostStep struct{ Step hosts.Step }

// NodeStep is a step package cluster took with hopbench galera's nodes
// (one bootstrapping, joining, synced, stopping), passed on as it is.
type NodeStep struct{ Step cluster.Step }

// Probing tells that the probe of the machine's constants begins.
type Probing struct{}

// Probed is the machine's constants, as the probe measured them.
type Probed struct{ Machine machine.Machine }

// Warning is an error the run carries on past; it goes in the report's
// warnings too.
type Warning struct{ Err error }

// Tracing says whether the run's traced rounds run: with the tracer's cost
// per record, or with the reason there are none.
type Tracing struct {
	On          bool
	PerRecordNs float64
	Note        string // why not, when !On
}

// Sized is a stage's round length, chosen from its paths' request cost.
type Sized struct{ Sizing hop.RoundSizing }

// Skipped is a path that does not run; the driver tells each once a run
// however many stages find it.
type Skipped struct{ Skip hop.Skip }

// RoundBegun is a step: one path (Cell of Cells) of one round of one
// stage beginning, with the run's estimate of what is left.
type RoundBegun struct {
	Stage, Stages int    // the stage, 0-based, of the run's
	Regime        string // the stage's regime, "" when the run has one unnamed
	Round, Rounds int    // the round, 0-based, of the stage's
	WarmUp        bool   // the round is discarded
	Cell, Cells   int    // the step's cell, 0-based, of the stage's
	Path          hop.Path
	Threads       int
	Left          time.Duration // about how long the rest of the run takes
}

// RoundEnded is the step's sample; Sample.Failed says why it has none.
type RoundEnded struct {
	Path    hop.Path
	Threads int
	Sample  hop.Sample
}

// TracerFloor tells that the tracer's floor (hooks that return at once) is
// measured on Path.
type TracerFloor struct{ Path hop.Path }

// TraceBegun tells that Path's traced round begins.
type TraceBegun struct {
	Regime string
	Path   hop.Path
}

// TraceAgain tells that Path's traced round runs once more, for Why (its
// overhead was outside its band).
type TraceAgain struct {
	Regime string
	Path   hop.Path
	Why    *hop.OutsideBand
}

// Traced is Path's traced round's split, or nil with Note saying why there
// is none.
type Traced struct {
	Path  hop.Path
	Trace *hop.Trace
	Note  string
}

// ConnectBegun tells that Path's connect-only series begins.
type ConnectBegun struct {
	Regime string
	Path   hop.Path
}

// Connected is Path's connect-only series: its figures, nil when no
// connection completed, or the error that ended it.
type Connected struct {
	Path    hop.Path
	Connect *hop.Connect
	Err     error
}

// Stopped tells that the run was interrupted where Stop says, and reports
// the rounds completed.
type Stopped struct{ Stop hop.Stop }

// Ended is a run's last event.
type Ended struct{}

// Resolving tells that, against a real backend, the run is made again with
// longer rounds until every relay path's added p50 interval excludes zero,
// within Bound in all.
type Resolving struct{ Bound time.Duration }

// Unresolved tells that after an attempt, Paths relay paths' intervals
// still hold zero After the time spent; the next attempt's rounds are
// Growth times as long.
type Unresolved struct {
	Paths  int
	After  time.Duration
	Growth int
}

// SweepBegun tells that a sweep of Instances client instances against
// Servers servers begins, Runs runs of Time at each thread count.
type SweepBegun struct {
	Instances, Servers int
	Threads            []int
	Runs               int
	Time               time.Duration
}

// SweepRun is one run (0-based, of Runs) of a sweep at Threads: the tps
// summed over its instances.
type SweepRun struct {
	Threads, Run, Runs int
	TPS                float64
	Instances          int
}

// GaleraPreparing tells that sysbench's tables are being created and
// loaded through Node.
type GaleraPreparing struct {
	Tables, TableSize int
	Node              string
}

// GaleraPrepared tells that the tables were loaded, in Took.
type GaleraPrepared struct{ Took time.Duration }

// GaleraPath is a proxy path started in front of Nodes nodes, listening on
// Host:Port, or Err when it did not start.
type GaleraPath struct {
	Path        string
	Host        string
	Port, Nodes int
	Err         error
}

// GaleraRound tells that round Round (0-based) of Rounds of Workload
// begins.
type GaleraRound struct {
	Workload      string
	Round, Rounds int
}

// GaleraRun tells that one sysbench of Workload through Path begins.
type GaleraRun struct {
	Workload, Path string
	Host           string
	Port, Threads  int
	Time           time.Duration
}

// GaleraFailed tells that Workload's run through Path failed; the path
// runs no more of that workload.
type GaleraFailed struct {
	Workload, Path string
	Err            error
}

// SysbenchLine is one of a running sysbench's per-second lines, without
// its newline.
type SysbenchLine struct {
	Workload, Path string
	Line           string
}

func (HostStep) event()        {}
func (NodeStep) event()        {}
func (Probing) event()         {}
func (Probed) event()          {}
func (Warning) event()         {}
func (Tracing) event()         {}
func (Sized) event()           {}
func (Skipped) event()         {}
func (RoundBegun) event()      {}
func (RoundEnded) event()      {}
func (TracerFloor) event()     {}
func (TraceBegun) event()      {}
func (TraceAgain) event()      {}
func (Traced) event()          {}
func (ConnectBegun) event()    {}
func (Connected) event()       {}
func (Stopped) event()         {}
func (Ended) event()           {}
func (Resolving) event()       {}
func (Unresolved) event()      {}
func (SweepBegun) event()      {}
func (SweepRun) event()        {}
func (GaleraPreparing) event() {}
func (GaleraPrepared) event()  {}
func (GaleraPath) event()      {}
func (GaleraRound) event()     {}
func (GaleraRun) event()       {}
func (GaleraFailed) event()    {}
func (SysbenchLine) event()    {}
