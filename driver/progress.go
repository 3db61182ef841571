package driver

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/wordwrap"
)

// ProgressLevel is how much the progress lines say (Config.ProgressLevel).
type ProgressLevel int

const (
	// ProgressRounds says where the run is once per round, and every
	// failure, skip and warning as it happens.
	ProgressRounds ProgressLevel = iota
	// ProgressLive adds a status line, rewritten in place, naming the path
	// that runs now: for a terminal.
	ProgressLive
	// ProgressPaths says every path's figures, a line per path and round.
	ProgressPaths
)

// progressWidth is the widest progress line: a longer message wraps.
const progressWidth = 100

// progress writes where the run is and about how long is left, from the
// mean duration of the steps so far of each kind: the rounds, and the
// traced round and connect-only series each cell has after them. Every
// line fits progressWidth columns.
type progress struct {
	w       io.Writer
	level   ProgressLevel
	rounds  phase
	traces  phase
	conns   phase
	began   time.Time
	status  bool       // a live status line is on screen, to be erased
	round   string     // the round said last: a new one gets its line
	skipped []hop.Skip // said already: each stage builds its topology afresh and finds the same
	cell    string     // what runs now, for a failure's line
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

func newProgress(w io.Writer, level ProgressLevel, total int, nominal time.Duration) *progress {
	return &progress{w: w, level: level, rounds: phase{total: total, nominal: nominal}}
}

// expect counts the traced rounds and connect-only series the run will
// have after its rounds, and how long one of each should take, into the
// estimate of what is left.
func (p *progress) expect(traces int, trace time.Duration, conns int, conn time.Duration) {
	p.traces = phase{total: traces, nominal: trace}
	p.conns = phase{total: conns, nominal: conn}
}

// say writes one message, wrapped at word boundaries to progressWidth, its
// continuation lines indented under the first.
func (p *progress) say(format string, args ...any) {
	p.clear()
	for _, line := range wordwrap.Lines("hopbench: "+fmt.Sprintf(format, args...), progressWidth, "hopbench:   ") {
		fmt.Fprintln(p.w, line)
	}
}

// clear erases the live status line, if one is on screen.
func (p *progress) clear() {
	if p.status {
		fmt.Fprint(p.w, "\r\033[K")
		p.status = false
	}
}

// drop takes steps that will not run (skipped paths' rounds, and cells
// their traced rounds and connect-only series) out of the estimate.
func (p *progress) drop(steps, cells, paths int) {
	p.rounds.total -= steps
	p.traces.total = max(p.traces.total-cells, p.traces.done)
	p.conns.total = max(p.conns.total-paths, p.conns.done)
}

func (p *progress) left() time.Duration {
	return (p.rounds.left() + p.traces.left() + p.conns.left()).Round(time.Second)
}

// roundAt places a step in the run, for the progress line: its stage
// (0-based) of stages, the run's rounds and discarded ones, and the
// stage's cells.
type roundAt struct {
	st                     Stage
	stage, stages          int
	step                   Step
	rounds, discard, cells int
}

func (p *progress) begin(at roundAt, c Cell) {
	st, stage, stages, s, rounds, discard, cells := at.st, at.stage, at.stages, at.step, at.rounds, at.discard, at.cells
	p.began = time.Now()
	var round strings.Builder
	if stages > 1 {
		fmt.Fprintf(&round, "stage %d/%d ", stage+1, stages)
	}
	if st.Regime != "" {
		round.WriteString(st.Regime + " ")
	}
	fmt.Fprintf(&round, "round %d/%d", s.Round+1, rounds)
	if s.Round < discard {
		round.WriteString(" (warm-up)")
	}
	if r := round.String(); r != p.round {
		p.round = r
		p.say("%s: %d paths, ~%s left", r, cells, p.left())
	}
	name := c.Path.Name()
	if c.Threads > 1 {
		name += fmt.Sprintf(" x%d", c.Threads)
	}
	p.cell = name
	switch p.level {
	case ProgressPaths:
		// The line is finished by end with the step's figures, so that
		// a long --time shows what runs now and a short one reads as a log.
		fmt.Fprintf(p.w, "hopbench:   %2d/%d %-24s ", s.Cell+1, cells, name)
	case ProgressLive:
		p.clear()
		fmt.Fprintf(p.w, "hopbench:   %s  %d/%d %s  ~%s left", p.round, s.Cell+1, cells, name, p.left())
		p.status = true
	}
}

func (p *progress) end(s hop.Sample) {
	p.rounds.end(p.began)
	if p.level == ProgressPaths {
		if s.Failed != "" {
			fmt.Fprintln(p.w, "failed")
			p.say("  %s: %s", p.cell, s.Failed)
			return
		}
		fmt.Fprintf(p.w, "%.0f tps, p50 %s µs, p95 %s µs", s.TPS, hop.Us(s.Latency.P50), hop.Us(s.Latency.P95))
		if s.Errors > 0 {
			fmt.Fprintf(p.w, ", %d errors", s.Errors)
		}
		fmt.Fprintln(p.w)
		return
	}
	if s.Failed != "" {
		p.say("  %s failed: %s", p.cell, s.Failed)
	}
}

// skip says why a path does not run, once per run however many stages find
// it.
func (p *progress) skip(s hop.Skip) {
	if slices.Contains(p.skipped, s) {
		return
	}
	p.skipped = append(p.skipped, s)
	p.say("skip %s: %s", s.Path, s.Reason)
}

// sized says how long the stage's rounds will run; the estimate of what is
// left then starts from that length.
func (p *progress) sized(rs hop.RoundSizing) {
	p.say("%s", rs)
	if p.rounds.done == 0 {
		p.rounds.nominal = time.Duration(rs.TimeS * float64(time.Second))
	}
}

// trace and traced frame a cell's traced round.
func (p *progress) trace(st Stage, c Cell) {
	p.began = time.Now()
	p.cell = c.Path.Name()
	switch p.level {
	case ProgressPaths:
		fmt.Fprintf(p.w, "hopbench:   %s traced %-24s ", st.Regime, c.Path.Name())
	case ProgressLive:
		p.clear()
		fmt.Fprintf(p.w, "hopbench:   %s traced round: %s", st.Regime, c.Path.Name())
		p.status = true
	}
}

// retrace says, with every path's figures only, that c's traced round
// runs once more, and why.
func (p *progress) retrace(st Stage, c Cell, why string) {
	if p.level != ProgressPaths {
		return
	}
	fmt.Fprintln(p.w, "again:")
	p.say("  %s: %s; traced once more", c.Path.Name(), why)
	began := p.began
	p.trace(st, c)
	p.began = began // the cell's traced rounds are one step
}

func (p *progress) traced(t *hop.Trace, note string) {
	p.traces.end(p.began)
	if p.level == ProgressPaths {
		if t == nil {
			fmt.Fprintln(p.w, "not traced")
			p.say("  %s not traced: %s", p.cell, note)
			return
		}
		fmt.Fprintf(p.w, "%d requests, p50 %s µs, identity %.1f%%, covered %.0f%%\n", t.Requests, hop.Us(t.TracedP50Us), t.IdentityPct, t.CoveragePct)
		return
	}
	if t == nil {
		p.say("  %s not traced: %s", p.cell, note)
	}
}

func (p *progress) warn(err error) { p.say("warning: %v", err) }

// connect and connected frame a connect-only series.
func (p *progress) connect(st Stage, path hop.Path) {
	p.began = time.Now()
	p.cell = path.Name()
	switch p.level {
	case ProgressPaths:
		fmt.Fprintf(p.w, "hopbench:   %s connects %-24s ", st.Regime, path.Name())
	case ProgressLive:
		p.clear()
		fmt.Fprintf(p.w, "hopbench:   %s connect-only series: %s", st.Regime, path.Name())
		p.status = true
	}
}

func (p *progress) connected(c *hop.Connect, err error) {
	p.conns.end(p.began)
	if p.level == ProgressPaths {
		switch {
		case err != nil:
			fmt.Fprintln(p.w, "failed")
			p.say("  %s connects failed: %v", p.cell, err)
		case c == nil:
			fmt.Fprintln(p.w, "no connection completed")
		default:
			fmt.Fprintf(p.w, "%d connects, p50 %s µs, p99 %s µs\n", c.N, hop.Us(c.P50Us), hop.Us(c.P99Us))
		}
		return
	}
	if err != nil {
		p.say("  %s connects failed: %v", p.cell, err)
	}
}

// finish erases the live status line at the end of the run.
func (p *progress) finish() { p.clear() }
