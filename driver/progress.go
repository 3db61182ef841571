package driver

import (
	"slices"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
)

// progress tells the run's Sink what the run does as it goes, with about
// how long is left, from the mean duration of the steps so far of each
// kind: the rounds, and the traced round and connect-only series each cell
// has after them. It composes no words: package present says the events.
type progress struct {
	sink    event.Sink
	rounds  phase
	traces  phase
	conns   phase
	began   time.Time
	skipped []hop.Skip // told already: each stage builds its topology afresh and finds the same
}

// phase is one kind of step: how many there are, how many ran and how
// long those took, and how long one should take before any has run.
type phase struct {
	total, done int
	spent       time.Duration
	nominal     time.Duration
}

func (f *phase) left() time.Duration {
	per := f.nominal
	if f.done > 0 {
		per = f.spent / time.Duration(f.done)
	}
	return time.Duration(f.total-f.done) * per
}

func (f *phase) end(began time.Time) {
	f.done++
	f.spent += time.Since(began)
}

// discard is the Sink of a run with no progress.
type discard struct{}

func (discard) Event(event.Event) {}

func newProgress(sink event.Sink, total int, nominal time.Duration) *progress {
	if sink == nil {
		sink = discard{}
	}
	return &progress{sink: sink, rounds: phase{total: total, nominal: nominal}}
}

// tell hands one event to the sink.
func (p *progress) tell(e event.Event) { p.sink.Event(e) }

// expect counts the traced rounds and connect-only series the run will
// have after its rounds, and how long one of each should take, into the
// estimate of what is left.
func (p *progress) expect(traces int, trace time.Duration, conns int, conn time.Duration) {
	p.traces = phase{total: traces, nominal: trace}
	p.conns = phase{total: conns, nominal: conn}
}

// drop takes steps that will not run (skipped paths' rounds, and cells
// their traced rounds and connect-only series) out of the estimate.
func (p *progress) drop(steps, cells, paths int) {
	p.rounds.total -= steps
	p.traces.total = max(p.traces.total-cells, p.traces.done)
	p.conns.total = max(p.conns.total-paths, p.conns.done)
}

func (p *progress) left() time.Duration {
	return p.rounds.left() + p.traces.left() + p.conns.left()
}

// roundAt places a step in the run, for the progress: its stage (0-based)
// of stages, the run's rounds and discarded ones, and the stage's cells.
type roundAt struct {
	st                     Stage
	stage, stages          int
	step                   Step
	rounds, discard, cells int
}

func (p *progress) begin(at roundAt, c Cell) {
	p.began = time.Now()
	p.tell(event.RoundBegun{Stage: at.stage, Stages: at.stages, Regime: at.st.Regime,
		Round: at.step.Round, Rounds: at.rounds, WarmUp: at.step.Round < at.discard,
		Cell: at.step.Cell, Cells: at.cells, Path: c.Path, Threads: c.Threads, Left: p.left()})
}

func (p *progress) end(c Cell, s hop.Sample) {
	p.rounds.end(p.began)
	p.tell(event.RoundEnded{Path: c.Path, Threads: c.Threads, Sample: s})
}

// skip tells why a path does not run, once per run however many stages
// find it.
func (p *progress) skip(s hop.Skip) {
	if slices.Contains(p.skipped, s) {
		return
	}
	p.skipped = append(p.skipped, s)
	p.tell(event.Skipped{Skip: s})
}

// sized tells how long the stage's rounds will run; the estimate of what
// is left then starts from that length.
func (p *progress) sized(rs hop.RoundSizing) {
	p.tell(event.Sized{Sizing: rs})
	if p.rounds.done == 0 {
		p.rounds.nominal = time.Duration(rs.TimeS * float64(time.Second))
	}
}

// trace and traced frame a cell's traced round.
func (p *progress) trace(st Stage, c Cell) {
	p.began = time.Now()
	p.tell(event.TraceBegun{Regime: st.Regime, Path: c.Path})
}

// retrace tells that c's traced round runs once more, and why; the cell's
// traced rounds are one step of the estimate.
func (p *progress) retrace(st Stage, c Cell, why *hop.OutsideBand) {
	p.tell(event.TraceAgain{Regime: st.Regime, Path: c.Path, Why: why})
}

func (p *progress) traced(c Cell, t *hop.Trace, note string) {
	p.traces.end(p.began)
	p.tell(event.Traced{Path: c.Path, Trace: t, Note: note})
}

func (p *progress) warn(err error) { p.tell(event.Warning{Err: err}) }

// connect and connected frame a connect-only series.
func (p *progress) connect(st Stage, path hop.Path) {
	p.began = time.Now()
	p.tell(event.ConnectBegun{Regime: st.Regime, Path: path})
}

func (p *progress) connected(path hop.Path, c *hop.Connect, err error) {
	p.conns.end(p.began)
	p.tell(event.Connected{Path: path, Connect: c, Err: err})
}

// finish ends the run's progress.
func (p *progress) finish() { p.tell(event.Ended{}) }
