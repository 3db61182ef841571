package present

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/internal/wordwrap"
	"github.com/hoplat/hoplat/present/machineline"
	"github.com/hoplat/hoplat/present/phrase"
)

// ProgressLevel is how much a Progress says.
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

// ProgressWidth is the widest progress line: a longer message wraps.
const ProgressWidth = 100

// Progress says a hopbench run's events (package driver/event) to a person
// as they happen: where the run is and about how long is left, what
// failed, was skipped or warned, at its level of detail. The messages of
// a run's steps wrap at ProgressWidth columns; a resolution's, a sweep's
// and hopbench galera's lines, the hosts' and the Galera nodes' steps
// (event.HostStep, event.NodeStep) and sysbench's lines it passes on
// (event.SysbenchLine) are said whole. It is an event.Sink, safe for use
// by several goroutines.
type Progress struct {
	mu     sync.Mutex
	w      io.Writer
	level  ProgressLevel
	status bool   // a live status line is on screen, to be erased
	round  string // the round said last: a new one gets its line
}

// NewProgress says events to w at level.
func NewProgress(w io.Writer, level ProgressLevel) *Progress {
	return &Progress{w: w, level: level}
}

// Event says e.
func (p *Progress) Event(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case event.HostStep:
		p.clear()
		fmt.Fprintln(p.w, hostStep(e.Step))
	case event.NodeStep:
		p.clear()
		fmt.Fprintln(p.w, nodeStep(e.Step))
	case event.Probing:
		p.say("probing the machine: wake-ups and loopback legs, pinned")
	case event.Probed:
		p.say("%s", machineline.Line(e.Machine))
	case event.Warning:
		p.say("warning: %v", e.Err)
	case event.Tracing:
		if e.On {
			p.say("tracer on: %.0f ns per record, taken off the traced segments", e.PerRecordNs)
		} else {
			p.say("not traced: %s", e.Note)
		}
	case event.Sized:
		p.say("%s", phrase.Sizing(e.Sizing))
	case event.Skipped:
		p.say("skip %s: %s", e.Skip.Path, e.Skip.Reason)
	case event.RoundBegun:
		p.roundBegun(e)
	case event.RoundEnded:
		p.roundEnded(e)
	case event.TracerFloor:
		p.say("tracer floor: hooks that return at once, on %s", e.Path.Name())
	case event.TraceBegun:
		p.traceBegun(e.Regime, e.Path)
	case event.TraceAgain:
		if p.level == ProgressPaths {
			fmt.Fprintln(p.w, "again:")
			p.say("  %s: %s; traced once more", e.Path.Name(), phrase.OutsideBand(e.Why))
			p.traceBegun(e.Regime, e.Path)
		}
	case event.Traced:
		p.traced(e)
	case event.ConnectBegun:
		p.connectBegun(e)
	case event.Connected:
		p.connected(e)
	case event.Stopped:
		p.say("%s: reporting the rounds completed", phrase.Stop(e.Stop))
	case event.Ended:
		p.clear()
		p.round = "" // a run made again says its rounds again
	case event.Resolving:
		fmt.Fprintf(p.w, "hopbench: against a real backend each round lengthens until every relay path's added p50 "+
			"interval excludes zero, within %s in all\n", e.Bound.Round(time.Second))
	case event.Unresolved:
		fmt.Fprintf(p.w, "hopbench: %d relay paths' intervals hold zero after %s; again with rounds %d times as long\n",
			e.Paths, e.After.Round(time.Second), e.Growth)
	case event.SweepBegun:
		fmt.Fprintf(p.w, "hopbench: sweep of %d client instances against %d servers, threads %v, %d runs of %v each\n",
			e.Instances, e.Servers, e.Threads, e.Runs, e.Time)
	case event.SweepRun:
		fmt.Fprintf(p.w, "hopbench: threads %d, run %d/%d: %.1f tps summed over %d instances\n", e.Threads, e.Run+1, e.Runs, e.TPS, e.Instances)
	default:
		p.galera(e)
	}
}

// galera says hopbench galera's steps, each a line of its own.
func (p *Progress) galera(e event.Event) {
	switch e := e.(type) {
	case event.GaleraPreparing:
		fmt.Fprintf(p.w, "galera: preparing %d tables of %d rows through %s\n", e.Tables, e.TableSize, e.Node)
	case event.GaleraPrepared:
		fmt.Fprintf(p.w, "galera: prepared in %.1fs\n", e.Took.Seconds())
	case event.GaleraPath:
		if e.Err != nil {
			fmt.Fprintf(p.w, "galera: %s %v\n", e.Path, e.Err)
		} else {
			fmt.Fprintf(p.w, "galera: %s listening on %s:%d in front of %d nodes\n", e.Path, e.Host, e.Port, e.Nodes)
		}
	case event.GaleraRound:
		fmt.Fprintf(p.w, "galera: %s: round %d of %d\n", e.Workload, e.Round+1, e.Rounds)
	case event.GaleraRun:
		fmt.Fprintf(p.w, "galera: %s through %s (%s:%d), %d threads, %v\n", e.Workload, e.Path, e.Host, e.Port, e.Threads, e.Time)
	case event.GaleraFailed:
		fmt.Fprintf(p.w, "galera: %s %s: %v\n", e.Workload, e.Path, e.Err)
	case event.SysbenchLine:
		fmt.Fprintf(p.w, "  %s %s %s\n", e.Workload, e.Path, e.Line)
	}
}

// say writes one message, wrapped at word boundaries to ProgressWidth,
// its continuation lines indented under the first.
func (p *Progress) say(format string, args ...any) {
	p.clear()
	for _, line := range wordwrap.Lines("hopbench: "+fmt.Sprintf(format, args...), ProgressWidth, "hopbench:   ") {
		fmt.Fprintln(p.w, line)
	}
}

// clear erases the live status line, if one is on screen.
func (p *Progress) clear() {
	if p.status {
		fmt.Fprint(p.w, "\r\033[K")
		p.status = false
	}
}

// cellName is a step's path, with its client threads beyond one.
func cellName(path hop.Path, threads int) string {
	name := path.Name()
	if threads > 1 {
		name += fmt.Sprintf(" x%d", threads)
	}
	return name
}

// roundBegun says a round's line when the round is a new one, and the
// step's own line at ProgressPaths, or its status line at ProgressLive.
func (p *Progress) roundBegun(e event.RoundBegun) {
	left := e.Left.Round(time.Second)
	var round strings.Builder
	if e.Stages > 1 {
		fmt.Fprintf(&round, "stage %d/%d ", e.Stage+1, e.Stages)
	}
	if e.Regime != "" {
		round.WriteString(e.Regime + " ")
	}
	fmt.Fprintf(&round, "round %d/%d", e.Round+1, e.Rounds)
	if e.WarmUp {
		round.WriteString(" (warm-up)")
	}
	if r := round.String(); r != p.round {
		p.round = r
		p.say("%s: %d paths, ~%s left", r, e.Cells, left)
	}
	name := cellName(e.Path, e.Threads)
	switch p.level {
	case ProgressPaths:
		// The line is finished by the step's end with its figures, so
		// that a long --time shows what runs now and a short one reads as
		// a log.
		fmt.Fprintf(p.w, "hopbench:   %2d/%d %-24s ", e.Cell+1, e.Cells, name)
	case ProgressLive:
		p.clear()
		fmt.Fprintf(p.w, "hopbench:   %s  %d/%d %s  ~%s left", p.round, e.Cell+1, e.Cells, name, left)
		p.status = true
	}
}

func (p *Progress) roundEnded(e event.RoundEnded) {
	s, name := e.Sample, cellName(e.Path, e.Threads)
	if p.level == ProgressPaths {
		if s.Failed != "" {
			fmt.Fprintln(p.w, "failed")
			p.say("  %s: %s", name, s.Failed)
			return
		}
		fmt.Fprintf(p.w, "%.0f tps, p50 %s µs, p95 %s µs", s.TPS, phrase.Us(s.Latency.P50), phrase.Us(s.Latency.P95))
		if s.Errors > 0 {
			fmt.Fprintf(p.w, ", %d errors", s.Errors)
		}
		fmt.Fprintln(p.w)
		return
	}
	if s.Failed != "" {
		p.say("  %s failed: %s", name, s.Failed)
	}
}

func (p *Progress) traceBegun(regime string, path hop.Path) {
	switch p.level {
	case ProgressPaths:
		fmt.Fprintf(p.w, "hopbench:   %s traced %-24s ", regime, path.Name())
	case ProgressLive:
		p.clear()
		fmt.Fprintf(p.w, "hopbench:   %s traced round: %s", regime, path.Name())
		p.status = true
	}
}

func (p *Progress) traced(e event.Traced) {
	t := e.Trace
	if p.level == ProgressPaths {
		if t == nil {
			fmt.Fprintln(p.w, "not traced")
			p.say("  %s not traced: %s", e.Path.Name(), e.Note)
			return
		}
		fmt.Fprintf(p.w, "%d requests, p50 %s µs, identity %.1f%%, covered %.0f%%\n", t.Requests, phrase.Us(t.TracedP50Us), t.IdentityPct, t.CoveragePct)
		return
	}
	if t == nil {
		p.say("  %s not traced: %s", e.Path.Name(), e.Note)
	}
}

func (p *Progress) connectBegun(e event.ConnectBegun) {
	switch p.level {
	case ProgressPaths:
		fmt.Fprintf(p.w, "hopbench:   %s connects %-24s ", e.Regime, e.Path.Name())
	case ProgressLive:
		p.clear()
		fmt.Fprintf(p.w, "hopbench:   %s connect-only series: %s", e.Regime, e.Path.Name())
		p.status = true
	}
}

func (p *Progress) connected(e event.Connected) {
	name := e.Path.Name()
	if p.level == ProgressPaths {
		switch {
		case e.Err != nil:
			fmt.Fprintln(p.w, "failed")
			p.say("  %s connects failed: %v", name, e.Err)
		case e.Connect == nil:
			fmt.Fprintln(p.w, "no connection completed")
		default:
			c := e.Connect
			fmt.Fprintf(p.w, "%d connects, p50 %s µs, p99 %s µs\n", c.N, phrase.Us(c.P50Us), phrase.Us(c.P99Us))
		}
		return
	}
	if e.Err != nil {
		p.say("  %s connects failed: %v", name, e.Err)
	}
}
