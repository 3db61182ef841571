package driver

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/probe"
	"github.com/hoplat/hoplat/roles"
)

// Run builds each stage's topology, runs every path in interleaved rounds,
// stops everything, and explains the result. Cancelling ctx (hopbench's
// first SIGINT or SIGTERM) stops the run at once, every process with it:
// the round in progress is dropped, and Run returns the report of the
// rounds completed so far, marked Partial (paths with no kept round
// Unmeasured) with where it stopped in Stop, which present.Words says in
// PartialReason; when no round was kept, it returns ctx's error.
func Run(ctx context.Context, cfg Config) (*hop.Report, error) {
	if resolving(cfg) {
		return resolve(ctx, cfg, func(ctx context.Context, cfg Config) (*hop.Report, error) {
			return (&bench{measure: RunClient}).run(ctx, cfg)
		})
	}
	return (&bench{measure: RunClient}).run(ctx, cfg)
}

// bench is one run; measure is swapped for a stand-in in tests.
type bench struct {
	measure func(ctx context.Context, argv, env []string, cpus affinity.CPUSet) (hop.Sample, error)
	hosts   *hostBed // a topology run's hosts; nil on loopback
	// server is where a backend hopbench did not start runs; nil for
	// the embedded one and on a topology's hosts.
	server *serverPlace
	// roundCap is the longest a sized round may run; 0 for no bound.
	roundCap time.Duration
	tracing  *tracing
}

func (b *bench) run(ctx context.Context, cfg Config) (out *hop.Report, err error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	began := time.Now()
	pingpong, err := cfg.Locate("pingpong")
	if err != nil {
		return nil, err
	}
	if b.hosts, err = upHosts(ctx, cfg); err != nil {
		return nil, err
	}
	defer func() { out, err = b.hosts.closed(out, err) }()
	if cfg.Sweeping() {
		return b.sweep(ctx, cfg, pingpong, began) // sweep.go
	}
	regimes, err := cfg.regimes()
	if err != nil {
		return nil, err
	}
	// On a topology's hosts the backend is the topology's to place, unless
	// --backend-cpus (BACKEND_CPUS, for a backend on this machine) asks
	// for a running one to be pinned.
	if !cfg.Backend.Embedded() && (b.hosts == nil || cfg.BackendCPUs.Len() > 0) {
		sp, err := placeServer(cfg.Backend, cfg.BackendCPUs)
		if err != nil {
			return nil, err
		}
		b.server = &sp
		defer func() {
			if rerr := sp.restore(); rerr != nil && err == nil {
				out, err = nil, rerr
			}
		}()
	}
	pl := newPlan(cfg, pingpong, regimes)
	b.roundCap = roundCap(cfg, pl.steps())
	pl.progress = newProgress(cfg.Progress, pl.steps(), cfg.Time+cfg.Warmup)
	defer pl.progress.finish()
	rep := b.newReport(cfg, pl.paths, regimes)
	// Steal is the run's, probe included: a vCPU the hypervisor did not
	// run for a while makes every figure of that while slower.
	steal := probe.StartSteal()
	if err := b.probeMachine(ctx, cfg, rep, pl.progress); err != nil {
		return nil, err
	}
	b.tracing = openTracing(ctx, cfg, b.hosts != nil)
	defer b.tracing.close()
	b.expect(pl, rep)
	all, err := b.runStages(ctx, pl, rep)
	if err != nil {
		return nil, err
	}
	if pct, err := steal.Pct(); err == nil && rep.Machine != nil {
		rep.Machine.StealPct = pct
	}
	b.explain(cfg, rep, all)
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

// plan is what a run's stages are built from: its paths, and its stages
// with the placement of each stage's regime. Regimes are outermost: each
// is a topology of its own, pinned as it starts, and its paths are
// compared with each other only.
type plan struct {
	cfg        Config
	pingpong   string
	paths      []hop.Path
	stages     []Stage
	placements map[string]affinity.Placement
	progress   *progress
}

func newPlan(cfg Config, pingpong string, regimes []Regime) *plan {
	pl := &plan{cfg: cfg, pingpong: pingpong, paths: cfg.Paths(), placements: map[string]affinity.Placement{}}
	for _, g := range regimes {
		pl.placements[g.Name] = g.Placement
		for _, st := range Stages(cfg.ServiceTimes, cfg.Sizes, cfg.Rows) {
			st.Regime = g.Name
			pl.stages = append(pl.stages, st)
		}
	}
	return pl
}

// steps is how many rounds the run's stages hold.
func (pl *plan) steps() int {
	return len(pl.stages) * pl.cfg.Rounds * len(pl.paths) * len(pl.cfg.Threads)
}

// newReport is the run's report before any figure: its configuration,
// environment and regimes.
func (b *bench) newReport(cfg Config, paths []hop.Path, regimes []Regime) *hop.Report {
	rep := &hop.Report{Schema: hop.Schema, Config: reportConfig(cfg, paths), Env: cfg.Env(), Skipped: []hop.Skip{}}
	for _, g := range regimes {
		places := g.Places()
		if b.server != nil {
			places = g.places([]string{roles.Client, roles.Relay})
			places.Server = b.server.place()
		}
		rep.Regimes = append(rep.Regimes, hop.RegimeInfo{Name: g.Name, Placement: g.Placement.String(), Places: places})
	}
	return rep
}

// probeMachine measures the machine's constants into rep; a probe that
// fails is a warning, unless the run was cancelled.
func (b *bench) probeMachine(ctx context.Context, cfg Config, rep *hop.Report, progress *progress) error {
	progress.tell(event.Probing{})
	m, err := cfg.Probe(ctx)
	switch {
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		rep.Warn(err.Error())
		progress.warn(err)
	default:
		rep.Machine = &m
		progress.tell(event.Probed{Machine: m})
	}
	return nil
}

// expect says whether the run is traced and tells the progress what
// follows the rounds: after its rounds each cell has a traced round
// (three pingpong runs and the assembly of the records) and each path a
// connect-only series.
func (b *bench) expect(pl *plan, rep *hop.Report) {
	cfg := pl.cfg
	rep.Tracer = b.tracing.info()
	pl.progress.tell(event.Tracing{On: b.tracing.tr != nil, PerRecordNs: rep.Tracer.PerRecordNs, Note: b.tracing.note})
	traces, conns := 0, 0
	if b.tracing.tr != nil {
		traces = len(pl.stages) * len(pl.paths) * len(cfg.Threads)
	}
	if cfg.Proto == ProtoMySQL && cfg.ConnectTime >= 0 {
		conns = len(pl.stages) * len(pl.paths)
	}
	pl.progress.expect(traces, 3*cfg.Warmup+cfg.Time+300*time.Millisecond, conns, cfg.ConnectTime+50*time.Millisecond)
}

// runStages runs the plan's stages in order and gathers their series,
// skips, pinning, sizing and warnings into rep. A cancelled run stops at
// the stage it was in: the report is partial, the stages not reached its
// rows still, unmeasured; with no kept round at all it is ctx's error.
func (b *bench) runStages(ctx context.Context, pl *plan, rep *hop.Report) ([]CellRounds, error) {
	cfg := pl.cfg
	var all []CellRounds
	pinning := map[string]string{}
	for si, st := range pl.stages {
		sr, err := b.runStage(ctx, &stageRun{cfg: cfg, pingpong: pl.pingpong, paths: pl.paths, st: st,
			placement: pl.placements[st.Regime], index: si, of: len(pl.stages), progress: pl.progress})
		if err != nil {
			return nil, err
		}
		all = append(all, sr.series...)
		for _, s := range sr.skipped {
			if !slices.Contains(rep.Skipped, s) {
				rep.Skipped = append(rep.Skipped, s)
			}
		}
		maps.Copy(pinning, sr.pinning)
		if sr.sizing != nil {
			rep.Config.RoundSizing = append(rep.Config.RoundSizing, *sr.sizing)
		}
		rep.Warn(sr.warnings...)
		if stopped := sr.stopped; stopped != nil {
			if !keptAny(all, cfg.Discard) {
				return nil, ctx.Err()
			}
			// A stage stopped before its rounds, and the stages not
			// reached, are the report's rows still: unmeasured.
			later := pl.stages[si+1:]
			if len(sr.series) == 0 {
				later = pl.stages[si:]
			}
			for _, st := range later {
				all = append(all, unmeasured(st, pl.paths, cfg.Threads, slices.Concat(rep.Skipped, sr.skipped))...)
			}
			rep.Partial = true
			rep.Stop = &hop.Stop{Cause: context.Cause(ctx), Round: stopped.rounds, Rounds: cfg.Rounds,
				Stage: si, Stages: len(pl.stages), Regime: st.Regime, Phase: stopped.phase}
			pl.progress.tell(event.Stopped{Stop: *rep.Stop})
			break
		}
	}
	if len(pinning) > 0 {
		rep.Env.Pinning = pinning
	}
	return all, nil
}

// explain analyses the run's series into rep: its paths and chains, the
// machine's states, the tracer's findings, the explanation of each hop and
// the verdicts.
func (b *bench) explain(cfg Config, rep *hop.Report, all []CellRounds) {
	rep.Paths, rep.Chains = Analyze(all, cfg.Discard, cfg.Hops)
	for _, p := range rep.Paths {
		// In the report only: every text style prints it.
		if _, ok := p.Trace.SchedstatGap(); ok {
			rep.Warned = append(rep.Warned, hop.Warning{Split: p.Name})
		}
	}
	if rep.Machine != nil {
		rep.Machine.States, rep.StatesEvidence = hop.StatesEvidence(rep.Paths)
	}
	rep.HostNoise = hop.HostNoiseOf(rep.Paths)
	if b.tracing.traced > 0 {
		var buf bytes.Buffer
		if _, err := b.tracing.waterfall.WriteTo(&buf); err == nil {
			rep.TraceEvents = buf.Bytes()
			rep.Tracer.Waterfall = b.tracing.traced
		}
	}
	if rep.Tracer != nil {
		rep.Tracer.Wakes = b.tracing.wakeCheck(rep.Machine)
		if b.tracing.tr != nil {
			rep.Tracer.FloorPct, rep.Tracer.FloorNote, rep.Tracer.FloorFailed = b.tracing.floorPct, b.tracing.floorNote, b.tracing.floorFailed
			if rep.Tracer.FloorPct == nil && rep.Tracer.FloorNote == "" && rep.Tracer.FloorFailed == nil {
				rep.Tracer.FloorNote = "no packed direct path in the run to measure the floor on"
			}
		}
	}
	hop.Explain(rep.Paths, rep.Machine)
	b.hosts.describe(rep, cfg.Backend)
}

// stageResult is what one stage measured and noticed.
type stageResult struct {
	series   []CellRounds
	skipped  []hop.Skip
	pinning  map[string]string
	warnings []string // a component that failed to stop cleanly: the figures stand, the report says so
	sizing   *hop.RoundSizing
	stopped  *stop // the run was cancelled in this stage: series holds the rounds completed
}

// stop is where a cancelled stage stopped; the run's report carries it,
// with the stage and the cause, as a hop.Stop.
type stop struct {
	rounds int           // rounds every cell of the stage completed
	phase  hop.StopPhase // what ran past the rounds, or before them
}

// keptAny reports whether any series holds a kept round.
func keptAny(all []CellRounds, discard int) bool {
	for _, s := range all {
		for i, smp := range s.Samples {
			if i >= discard && smp.Failed == "" {
				return true
			}
		}
	}
	return false
}

// unmeasured is a stage's rows with no round: the report of a run stopped
// before them still lists them, as paths not measured.
func unmeasured(st Stage, paths []hop.Path, threads []int, skipped []hop.Skip) []CellRounds {
	var out []CellRounds
	for _, c := range Cells(paths, threads) {
		if slices.ContainsFunc(skipped, func(k hop.Skip) bool { return k.Path == c.Path.Name() }) {
			continue
		}
		out = append(out, CellRounds{Stage: st, Cell: c})
	}
	return out
}

// obtained is the placement a series' components got, per component: the
// client's as each kept round's process read it back (several when they
// differ), the relays' and the server's as their processes did.
func obtained(regime string, s CellRounds, topo *Topology, discard int) map[string]string {
	if regime == RegimeNone {
		out := map[string]string{roles.Client: "unpinned", roles.Server: "unpinned"}
		if s.Cell.Path.Hops > 0 {
			out[roles.Relay] = "unpinned"
		}
		return out
	}
	out := map[string]string{}
	var client []string
	for i, smp := range s.Samples {
		if i >= discard && smp.Failed == "" {
			client = append(client, smp.CPUs)
		}
	}
	if v := joinDistinct(client); v != "" {
		out[roles.Client] = v
	}
	if v := topo.RelayCPUs[s.Cell.Path]; v != "" {
		out[roles.Relay] = v
	}
	if v := topo.Pinning[roles.Server]; v != "" {
		out[roles.Server] = v
	}
	return out
}

func clientFor(cfg Config, st Stage, placement affinity.Placement) Client {
	c := Client{
		Proto: cfg.Proto, Command: cfg.Command, Time: cfg.Time, Warmup: cfg.Warmup,
		CPUs: cpusOf(placement, roles.Client), RXStamps: true,
	}
	if cfg.Proto == ProtoEcho {
		c.Size = st.Size
	}
	if cfg.Backend.Embedded() {
		c.User, c.Password = cfg.User, cfg.Password
	} else {
		c.User, c.Password, c.DB = cfg.Backend.User, cfg.Backend.Password, cfg.Backend.DB
	}
	return c
}

// rowBytes is the mysql responder's bytes per row: --size names it for
// mysql, since a result's size is rows times row bytes.
func rowBytes(cfg Config, st Stage) int {
	if cfg.Proto == ProtoMySQL {
		return st.Size
	}
	return 0
}

func reportConfig(cfg Config, paths []hop.Path) hop.ReportConfig {
	rc := hop.ReportConfig{
		Backend: cfg.Backend.String(), Proto: cfg.Proto, Threads: cfg.Threads,
		TimeS: cfg.Time.Seconds(), WarmupS: cfg.Warmup.Seconds(), Rounds: cfg.Rounds, Discard: cfg.Discard,
		Hops: cfg.Hops, Sizes: cfg.Sizes, Rows: cfg.Rows, Placement: cfg.Placement.String(), Nice: cfg.Nice,
		RelayLock: cfg.RelayLock, Stats: cfg.Stats,
	}
	if cfg.Proto == ProtoMySQL {
		rc.Command = cfg.Command
	}
	for _, p := range paths {
		rc.Paths = append(rc.Paths, p.Name())
	}
	for _, d := range cfg.ServiceTimes {
		rc.ServiceTimesUs = append(rc.ServiceTimesUs, float64(d.Nanoseconds())/1e3)
	}
	for _, x := range cfg.Proxies {
		pr := hop.ProxyInfo{Name: x.Name, Path: x.Path().Name()}
		if x.Addr != nil {
			pr.Address = x.Addr.String()
		} else {
			pr.Command = x.Spec
		}
		rc.Proxies = append(rc.Proxies, pr)
	}
	return rc
}

// Failure is the first failed round of a report and how many failed.
type Failure struct {
	Path   string // the path's name, with its thread count when swept
	Round  int    // 0-based
	Cause  string // the round's error: pingpong's exit and its last stderr
	Failed int    // failed rounds in the whole report, discarded ones included
}

func (f *Failure) Error() string {
	return fmt.Sprintf("%d failed rounds; the first, %s round %d: %s", f.Failed, f.Path, f.Round+1, f.Cause)
}

// FirstFailure returns the first failed round of rep in path order, nil
// when every round ran.
func FirstFailure(rep *hop.Report) *Failure {
	var first *Failure
	n := 0
	for _, p := range rep.Paths {
		for _, r := range p.Rounds {
			if r.Failed == "" {
				continue
			}
			n++
			if first == nil {
				first = &Failure{Path: pathLabel(p), Round: r.Index, Cause: r.Failed}
			}
		}
	}
	if first != nil {
		first.Failed = n
	}
	return first
}

// Unmeasured returns an error naming every path of rep without one
// successful kept round: its row holds zeros, not figures, and a run that
// measured nothing on a path must not pass for one that did.
func Unmeasured(rep *hop.Report) error {
	var none []string
	for _, p := range rep.Paths {
		if !slices.ContainsFunc(p.Rounds, func(r hop.Round) bool { return r.Kept }) {
			none = append(none, pathLabel(p))
		}
	}
	if len(none) == 0 {
		return nil
	}
	return fmt.Errorf("no successful round on %d of %d paths: %s", len(none), len(rep.Paths), strings.Join(none, ", "))
}

func pathLabel(p hop.PathResult) string {
	return fmt.Sprintf("%s (%d threads)", p.Name, p.Threads)
}
