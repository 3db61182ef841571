package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/probe"
	"github.com/hoplat/hoplat/results/hop"
	"github.com/hoplat/hoplat/roles"
)

// Run builds each stage's topology, runs every path in interleaved rounds,
// stops everything, and explains the result. Cancelling ctx (hopbench's
// first SIGINT or SIGTERM) stops the run at once, every process with it:
// the round in progress is dropped, and Run returns the report of the
// rounds completed so far, marked Partial (paths with no kept round
// Unmeasured); when no round was kept, it returns ctx's error.
func Run(ctx context.Context, cfg Config) (*hop.Report, error) {
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
	paths := cfg.Paths()
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
	// Regimes outermost: each is a topology of its own, pinned as it
	// starts, and its paths are compared with each other only.
	var stages []Stage
	placements := map[string]affinity.Placement{}
	for _, g := range regimes {
		placements[g.Name] = g.Placement
		for _, st := range Stages(cfg.ServiceTimes, cfg.Sizes, cfg.Rows) {
			st.Regime = g.Name
			stages = append(stages, st)
		}
	}
	steps := len(stages) * cfg.Rounds * len(paths) * len(cfg.Threads)
	b.roundCap = roundCap(cfg, steps)
	progress := newProgress(cfg.Progress, cfg.ProgressLevel, steps, cfg.Time+cfg.Warmup)
	defer progress.finish()
	var all []CellRounds
	rep := &hop.Report{Schema: hop.Schema, Config: reportConfig(cfg, paths), Env: cfg.Env(), Skipped: []hop.Skip{}}
	for _, g := range regimes {
		note := g.Note()
		if b.server != nil {
			note = g.note([]string{roles.Client, roles.Relay}) + "; " + b.server.note()
		}
		rep.Regimes = append(rep.Regimes, hop.RegimeInfo{Name: g.Name, Placement: g.Placement.String(), Note: note})
	}
	// Steal is the run's, probe included: a vCPU the hypervisor did not
	// run for a while makes every figure of that while slower.
	steal := probe.StartSteal()
	progress.say("probing the machine: wake-ups and loopback legs, pinned")
	if m, err := cfg.Probe(ctx); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		rep.Warnings = append(rep.Warnings, err.Error())
		progress.warn(err)
	} else {
		rep.Machine = &m
		progress.say("%s", m.Summary())
	}
	b.tracing = openTracing(ctx, cfg, b.hosts != nil)
	defer b.tracing.close()
	rep.Tracer = b.tracing.info()
	if b.tracing.tr != nil {
		progress.say("tracer on: %.0f ns per record, taken off the traced segments", rep.Tracer.PerRecordNs)
	} else {
		progress.say("not traced: %s", b.tracing.note)
	}
	// After its rounds each cell has a traced round (three pingpong runs
	// and the assembly of the records) and each path a connect-only series.
	traces, conns := 0, 0
	if b.tracing.tr != nil {
		traces = len(stages) * len(paths) * len(cfg.Threads)
	}
	if cfg.Proto == ProtoMySQL && cfg.ConnectTime >= 0 {
		conns = len(stages) * len(paths)
	}
	progress.expect(traces, 3*cfg.Warmup+cfg.Time+300*time.Millisecond, conns, cfg.ConnectTime+50*time.Millisecond)
	pinning := map[string]string{}
	var stopped *stop
	for si, st := range stages {
		sr, err := b.runStage(ctx, cfg, pingpong, paths, st, placements[st.Regime], si, len(stages), progress)
		if err != nil {
			return nil, err
		}
		all = append(all, sr.series...)
		if stopped = sr.stopped; stopped != nil {
			stopped.stage, stopped.regime = si, st.Regime
			if !keptAny(all, cfg.Discard) {
				return nil, ctx.Err()
			}
			// A stage stopped before its rounds, and the stages not
			// reached, are the report's rows still: unmeasured.
			later := stages[si+1:]
			if len(sr.series) == 0 {
				later = stages[si:]
			}
			for _, st := range later {
				all = append(all, unmeasured(st, paths, cfg.Threads, slices.Concat(rep.Skipped, sr.skipped))...)
			}
		}
		for _, s := range sr.skipped {
			if !slices.Contains(rep.Skipped, s) {
				rep.Skipped = append(rep.Skipped, s)
			}
		}
		maps.Copy(pinning, sr.pinning)
		if sr.sizing != nil {
			rep.Config.RoundSizing = append(rep.Config.RoundSizing, *sr.sizing)
		}
		rep.Warnings = append(rep.Warnings, sr.warnings...)
		if stopped != nil {
			break
		}
	}
	if stopped != nil {
		rep.Partial = true
		rep.PartialReason = stopped.reason(context.Cause(ctx), len(stages), cfg.Rounds)
		progress.say("%s: reporting the rounds completed", rep.PartialReason)
	}
	rep.Paths, rep.Chains = Analyze(all, cfg.Discard, cfg.Hops)
	for _, p := range rep.Paths {
		// In the report only: every text style prints it.
		if w := p.Trace.SchedstatWarning(p.Name); w != "" {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	if len(pinning) > 0 {
		rep.Env.Pinning = pinning
	}
	if pct, err := steal.Pct(); err == nil && rep.Machine != nil {
		rep.Machine.StealPct = pct
	}
	if rep.Machine != nil {
		rep.Machine.States = hop.States(rep.Paths)
	}
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
			rep.Tracer.FloorPct, rep.Tracer.FloorNote = b.tracing.floorPct, b.tracing.floorNote
			if rep.Tracer.FloorPct == nil && rep.Tracer.FloorNote == "" {
				rep.Tracer.FloorNote = "no packed direct path in the run to measure the floor on"
			}
		}
	}
	hop.Explain(rep.Paths, rep.Machine)
	b.hosts.describe(rep, cfg.Backend)
	rep.Verdicts = hop.Verdicts(rep)
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
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

// stop is where a cancelled run stopped, for its partial report.
type stop struct {
	stage  int    // 0-based, among the run's stages
	regime string // the stage's placement regime
	rounds int    // rounds every cell of the stage completed
	phase  string // what ran past the rounds, "" within them
}

// reason says what stopped the run and where: "interrupted by SIGINT
// after round 3 of 11", with the stage when the run has several and the
// phase when the rounds were all done.
func (s stop) reason(cause error, stages, rounds int) string {
	// A cause that names its signal (cli.Interrupted) is said by it.
	var sig interface{ SignalName() string }
	what := fmt.Sprintf("stopped (%v)", cause)
	if errors.As(cause, &sig) {
		what = "interrupted by " + sig.SignalName()
	}
	where := fmt.Sprintf("after round %d of %d", s.rounds, rounds)
	if stages > 1 {
		where += fmt.Sprintf(" in stage %d of %d", s.stage+1, stages)
		if s.regime != "" {
			where += " (" + s.regime + ")"
		}
	}
	if s.phase != "" {
		where += ", in " + s.phase
	}
	return what + " " + where
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

func (b *bench) runStage(ctx context.Context, cfg Config, pingpong string, paths []hop.Path, st Stage, placement affinity.Placement, si, nstages int, progress *progress) (sr stageResult, err error) {
	// sr is a named result so that the deferred Stop's warnings reach
	// the caller.
	spec := TopologySpec{
		TempRoot: cfg.TempRoot,
		Backend:  cfg.Backend,
		Responder: Responder{
			Proto: cfg.Proto, ServiceTime: st.ServiceTime, Rows: st.Rows, RowBytes: rowBytes(cfg, st),
			User: cfg.User, Password: cfg.Password, CPUs: cpusOf(placement, roles.Server),
		},
		Nice:      cfg.Nice,
		Paths:     paths,
		Relay:     HopRelay{Lock: cfg.RelayLock, CPUs: cpusOf(placement, roles.Relay)},
		Stats:     cfg.Stats,
		Placement: placement,
		Locate:    cfg.Locate,
		Hosts:     b.hosts,
		Proxies:   cfg.Proxies,
	}
	topo, err := Build(ctx, spec)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{stopped: &stop{phase: "starting the components"}}, nil
		}
		return stageResult{}, err
	}
	warn := func(err error) {
		if err != nil && ctx.Err() == nil {
			sr.warnings = append(sr.warnings, err.Error())
			progress.warn(err)
		}
	}
	defer func() { warn(topo.Stop()) }()
	if b.server != nil {
		topo.Pinning[roles.Server] = b.server.cpus
	}
	var live []hop.Path
	for _, p := range paths {
		if _, ok := topo.Entries[p]; ok {
			live = append(live, p)
		}
	}
	for _, s := range topo.Skipped {
		progress.skip(s)
	}
	for _, n := range topo.Notes {
		if !slices.Contains(sr.warnings, n) {
			sr.warnings = append(sr.warnings, n)
		}
	}
	gone := len(paths) - len(live)
	progress.drop(gone*len(cfg.Threads)*cfg.Rounds, gone*len(cfg.Threads), gone)
	if cfg.RoundRequests > 0 && len(live) > 0 {
		// Every round of the stage, and every per-request figure taken
		// over its rounds, runs the sized length from here on.
		d, rs, err := b.sizeRounds(ctx, cfg, pingpong, st, placement, topo, live, b.roundCap)
		if err != nil {
			if ctx.Err() != nil {
				sr.stopped = &stop{phase: "sizing the rounds"}
				return sr, nil
			}
			return stageResult{}, err
		}
		cfg.Time, sr.sizing = d, &rs
		progress.sized(rs)
	}
	cells := Cells(live, cfg.Threads)
	sr.series = make([]CellRounds, len(cells))
	for i, c := range cells {
		sr.series[i] = CellRounds{Stage: st, Cell: c, Series: hop.Series{Samples: make([]hop.Sample, cfg.Rounds)}}
	}
	client := clientFor(cfg, st, placement)
	clientCPUs, _ := placement.For(roles.Client)
	relays := newRelayRounds(cells, topo, cfg.Stats, cfg.Discard)
	kworkers := newKworkerRounds(cells, cfg.Rounds, placement, b.hosts != nil)
	use := newResourceRounds(len(cells)) // resources.go
	serverPID := 0
	if b.server != nil {
		serverPID = b.server.pid
	}
	ends := newEndpointRounds(len(cells), cfg.Rounds, topo, b.hosts != nil)
	// done counts each cell's completed rounds: a cancelled run keeps
	// those, and drops the step it cut short.
	done := make([]int, len(cells))
	// Relays on this machine start afresh before every cycle of rounds
	// but the first (Topology.Respawn); a user's proxies and other hosts'
	// relays run through the stage.
	respawn := b.hosts == nil && len(cfg.Proxies) == 0
	for _, step := range Schedule(len(cells), cfg.Rounds) {
		c := cells[step.Cell]
		if respawn && step.Round > 0 && step.Cell == 0 {
			if err := topo.Respawn(ctx, spec); err != nil {
				if ctx.Err() != nil {
					break
				}
				return stageResult{}, err
			}
		}
		relayBase := relays.snap(ctx, step.Cell, c, step.Round)
		if ctx.Err() != nil {
			break
		}
		progress.begin(st, si, nstages, step, cfg.Rounds, cfg.Discard, len(cells), c)
		argv, err := b.hosts.argv(roles.Client, client.Args(pingpong, topo.Entries[c.Path], c.Threads))
		if err != nil {
			return stageResult{}, err
		}
		kwBase := kworkers.begin(step.Cell)
		serverBase := ends.begin()
		smp, err := b.measure(ctx, argv, client.Env(), clientCPUs)
		if ctx.Err() != nil {
			break
		}
		ends.end(step.Cell, step.Round, serverBase)
		kworkers.end(step.Cell, step.Round, kwBase)
		relayEnd := relays.snap(ctx, step.Cell, c, step.Round)
		if ctx.Err() != nil {
			break // before add: the relays' totals keep the rounds kept
		}
		warn(relays.add(step.Cell, relayBase, relayEnd))
		if err != nil {
			smp = hop.Sample{Failed: err.Error()}
		} else if smp.TPS == 0 && (smp.Hist == nil || smp.Hist.Count() == 0) {
			// A round in which no reply came back has no figures, and a
			// p50 of 0 must not pair with its baseline's. On loopback this
			// is a reply held past the round's end, as a retransmission
			// after the 200 ms minimum RTO would hold it.
			smp = hop.Sample{Failed: "no request completed in the round (a reply stalled past its end)"}
		}
		sr.series[step.Cell].Samples[step.Round] = smp
		done[step.Cell]++
		use.observe(step.Cell, c.Path, topo, serverPID, smp)
		progress.end(smp)
	}
	if ctx.Err() != nil {
		for i := range sr.series {
			sr.series[i].Samples = sr.series[i].Samples[:done[i]]
		}
		sr.stopped = &stop{rounds: slices.Min(append(done, cfg.Rounds))}
	}
	// stopIn marks the stage stopped in a phase past its rounds, which
	// are all kept.
	stopIn := func(phase string) {
		if sr.stopped == nil {
			sr.stopped = &stop{rounds: cfg.Rounds, phase: phase}
		}
	}
	if sr.stopped == nil && b.tracing.tr != nil && b.tracing.floorPct == nil && sharesOneCPU(placement) {
		// The tracer's floor, once a run, on its packed direct path.
		for i, c := range cells {
			if c.Path.Relay != hop.Direct {
				continue
			}
			// Rounds as long as the untraced ones beside a traced round.
			floor := client
			floor.Time = max(tracedTime(cfg.Time, sr.series[i].Samples, cfg.Discard)/2, 50*time.Millisecond)
			argv, err := b.hosts.argv(roles.Client, floor.Args(pingpong, topo.Entries[c.Path], c.Threads))
			if err != nil {
				return stageResult{}, err
			}
			progress.say("tracer floor: hooks that return at once, on %s", c.Path.Name())
			b.tracing.measureFloor(ctx, argv, client.Env(), clientCPUs)
			if ctx.Err() != nil {
				stopIn("the tracer's floor")
				b.tracing.floorPct, b.tracing.floorNote = nil, "tracer floor: the run was interrupted"
			}
			break
		}
	}
	for i, c := range cells {
		if b.tracing.tr == nil {
			sr.series[i].TraceNote = b.tracing.note
			continue
		}
		if sr.stopped != nil {
			sr.series[i].TraceNote = "the run was interrupted before its traced round"
			continue
		}
		progress.trace(st, c)
		traced := client
		traced.Time = tracedTime(cfg.Time, sr.series[i].Samples, cfg.Discard)
		argv, err := b.hosts.argv(roles.Client, traced.Args(pingpong, topo.Entries[c.Path], c.Threads))
		if err != nil {
			return stageResult{}, err
		}
		// The untraced rounds beside it are half as long: a thousand
		// requests give their p50, and the run its time back.
		beside := traced
		beside.Time = max(traced.Time/2, 50*time.Millisecond)
		besideArgv, err := b.hosts.argv(roles.Client, beside.Args(pingpong, topo.Entries[c.Path], c.Threads))
		if err != nil {
			return stageResult{}, err
		}
		// A traced round that found no request (its records of the
		// client missing) runs once more before the path goes untraced.
		for try := 0; try < 2 && sr.series[i].Trace == nil && ctx.Err() == nil; try++ {
			sr.series[i].Trace, sr.series[i].TraceNote = b.tracedRound(ctx, cfg, argv, besideArgv, client.Env(), clientCPUs, topo, c, placement)
		}
		// A traced round whose overhead is outside its band saw another
		// machine than the untraced rounds beside it: it runs once more
		// (with its own untraced rounds on either side), and if that one
		// is outside too, the split is reported as not trusted.
		if why := b.tracing.outsideBand(sr.series[i].Trace); why != "" && ctx.Err() == nil {
			progress.retrace(st, c, why)
			if again, note := b.tracedRound(ctx, cfg, argv, besideArgv, client.Env(), clientCPUs, topo, c, placement); again != nil {
				sr.series[i].Trace, sr.series[i].TraceNote = again, note
			}
			if why := b.tracing.outsideBand(sr.series[i].Trace); why != "" {
				sr.series[i].Trace.NotTrusted = why + ", twice"
			}
		}
		if ctx.Err() != nil {
			// The round in progress saw part of its requests: no split.
			sr.series[i].Trace, sr.series[i].TraceNote = nil, "the run was interrupted in its traced round"
			stopIn("the traced rounds")
			continue
		}
		progress.traced(sr.series[i].Trace, sr.series[i].TraceNote)
	}
	for i := range sr.series {
		sr.series[i].Resources = use.of(i)
	}
	relays.perRequest(sr.series, cfg.Time+cfg.Warmup)
	kworkers.perRequest(sr.series, cfg.Discard, cfg.Time+cfg.Warmup)
	ends.perRequest(sr.series, cfg.Discard, cfg.Time+cfg.Warmup)
	if sr.stopped == nil {
		if err := b.connectSeries(ctx, cfg, pingpong, st, placement, topo, sr.series, progress); err != nil {
			if ctx.Err() == nil {
				return stageResult{}, err
			}
			stopIn("the connect-only series")
		}
	}
	for i := range sr.series {
		sr.series[i].ClientWakeUs = clientWakes(sr.series[i].Samples, cfg.Discard)
	}
	for _, s := range sr.series {
		for _, smp := range s.Samples {
			if smp.CPUs != "" {
				topo.Pinning[roles.Client] = smp.CPUs
			}
			for k, v := range smp.Pinning {
				topo.Pinning["client "+k] = v
			}
		}
	}
	for i := range sr.series {
		sr.series[i].Placement = obtained(st.Regime, sr.series[i], topo, cfg.Discard)
	}
	sr.skipped, sr.pinning = topo.Skipped, topo.Pinning
	return sr, nil
}

// connectSeries runs, for every path of the stage, one connect-only
// pingpong: a series of whole connection set-ups, from which the p50 and
// p99 of what a connection costs through the path. It runs after the
// rounds, whose relay CPU is counted by then, and at the stage's first
// thread count. mysql only: echo has no handshake to speak of.
func (b *bench) connectSeries(ctx context.Context, cfg Config, pingpong string, st Stage, placement affinity.Placement, topo *Topology, series []CellRounds, progress *progress) error {
	if cfg.Proto != ProtoMySQL || cfg.ConnectTime < 0 {
		return nil
	}
	client := clientFor(cfg, st, placement)
	client.ConnectOnly, client.Time, client.Warmup = true, cfg.ConnectTime, 0
	clientCPUs, _ := placement.For(roles.Client)
	done := map[hop.Path]*hop.Connect{}
	for i := range series {
		s := &series[i]
		if c, ok := done[s.Cell.Path]; ok {
			s.Connect = c
			continue
		}
		progress.connect(st, s.Cell.Path)
		argv, err := b.hosts.argv(roles.Client, client.Args(pingpong, topo.Entries[s.Cell.Path], 1))
		if err != nil {
			return err
		}
		smp, err := b.measure(ctx, argv, client.Env(), clientCPUs)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var c *hop.Connect
		if err == nil && smp.Hist != nil && smp.Hist.Count() > 0 {
			c = &hop.Connect{P50Us: smp.Latency.P50, P99Us: smp.Latency.P99, N: smp.Hist.Count()}
		}
		progress.connected(c, err)
		done[s.Cell.Path] = c
		s.Connect = c
	}
	return nil
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
