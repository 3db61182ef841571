package driver

import (
	"context"
	"slices"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/proxyconf"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// observer is one of a stage's per-round collectors: the relays' CPU and
// stats (relayRounds), the kernel's workers (kworkerRounds), the
// responder's CPU (endpointRounds) and the processes' peaks
// (resourceRounds). Every step of the stage begins the observers, in
// order, just before its client runs and ends them, in reverse order,
// just after, outside the client's timed window; each keeps what it saw
// for the step's cell and round. Once the rounds are over, perRequest
// writes each one's figures over a cell's kept rounds (those from discard
// on, each round's requests counted over round, its length with its
// warm-up) into the stage's series, in cell order.
//
// The tracer is not one of them: it measures rounds of its own, after
// the stage's (traceStage).
type observer interface {
	begin(ctx context.Context, cell, round int)
	end(ctx context.Context, cell, round int, smp hop.Sample) error
	perRequest(series []CellRounds, discard int, round time.Duration)
}

// stageRun is one stage of a run: what the run gives it, the topology
// built for it, its cells and the client that measures them, and what it
// has measured so far. runStage reads it from top to bottom.
type stageRun struct {
	cfg       Config // cfg.Time is the sized round length once sized
	pingpong  string
	paths     []hop.Path
	st        Stage
	placement affinity.Placement
	index, of int // the stage's place among the run's stages
	progress  *progress

	spec       TopologySpec
	topo       *Topology
	cells      []Cell
	client     Client
	clientCPUs affinity.CPUSet
	sr         stageResult
}

// runStage builds the stage's topology, runs its interleaved rounds with
// their observers, its traced rounds and connect-only series, and stops
// the topology. A cancelled run returns the stage's completed rounds,
// marked stopped, and no error.
func (b *bench) runStage(ctx context.Context, s *stageRun) (sr stageResult, err error) {
	s.spec = b.topologySpec(s)
	s.topo, err = Build(ctx, s.spec)
	if err != nil {
		if ctx.Err() != nil {
			return stageResult{stopped: &stop{phase: hop.PhaseStarting}}, nil
		}
		return stageResult{}, err
	}
	// sr is a named result so that the deferred Stop's warnings reach
	// the caller.
	defer func() {
		s.warn(ctx, s.topo.Stop())
		sr.warnings = s.sr.warnings
	}()
	live := b.livePaths(s)
	if s.cfg.RoundRequests > 0 && len(live) > 0 {
		// Every round of the stage, and every per-request figure taken
		// over its rounds, runs the sized length from here on.
		d, rs, err := b.sizeRounds(ctx, s, live)
		if err != nil {
			if ctx.Err() != nil {
				s.sr.stopped = &stop{phase: hop.PhaseSizing}
				return s.sr, nil
			}
			return stageResult{}, err
		}
		s.cfg.Time, s.sr.sizing = d, &rs
		s.progress.sized(rs)
	}
	s.cells = Cells(live, s.cfg.Threads)
	s.client = clientFor(s.cfg, s.st, s.placement)
	s.clientCPUs, _ = s.placement.For(roles.Client)
	obs := b.observers(s)
	if err := b.rounds(ctx, s, obs); err != nil {
		return stageResult{}, err
	}
	if err := b.traceStage(ctx, s); err != nil {
		return stageResult{}, err
	}
	for _, o := range obs {
		o.perRequest(s.sr.series, s.cfg.Discard, s.cfg.Time+s.cfg.Warmup)
	}
	if s.sr.stopped == nil {
		if err := b.connectSeries(ctx, s); err != nil {
			if ctx.Err() == nil {
				return stageResult{}, err
			}
			s.stopIn(hop.PhaseConnect)
		}
	}
	s.settle()
	return s.sr, nil
}

// topologySpec is what the stage's topology is built from.
func (b *bench) topologySpec(s *stageRun) TopologySpec {
	cfg := s.cfg
	return TopologySpec{
		TempRoot: cfg.TempRoot,
		Backend:  cfg.Backend,
		Responder: Responder{
			Proto: cfg.Proto, ServiceTime: s.st.ServiceTime, Rows: s.st.Rows, RowBytes: rowBytes(cfg, s.st),
			User: cfg.User, Password: cfg.Password, CPUs: cpusOf(s.placement, roles.Server),
		},
		Nice:      cfg.Nice,
		Paths:     s.paths,
		Relay:     proxyconf.HopRelay{Lock: cfg.RelayLock, CPUs: cpusOf(s.placement, roles.Relay)},
		Stats:     cfg.Stats,
		Placement: s.placement,
		Locate:    cfg.Locate,
		Hosts:     b.hosts,
		Proxies:   cfg.Proxies,
		Replicas:  replicaAddrs(cfg.Replicas),
	}
}

// replicaAddrs are the replicas' TCP addresses (a UNIX socket where one has
// no TCP address).
func replicaAddrs(replicas []Backend) []sockets.Addr {
	var out []sockets.Addr
	for _, r := range replicas {
		switch {
		case r.TCP != nil:
			out = append(out, *r.TCP)
		case r.UNIX != nil:
			out = append(out, *r.UNIX)
		}
	}
	return out
}

// livePaths takes what Build said of the stage: the server's pinning
// where hopbench did not start it, the paths skipped (each said), the
// notes (each once). It returns the paths that run, and drops the others'
// steps from what is left to do.
func (b *bench) livePaths(s *stageRun) []hop.Path {
	if b.server != nil {
		s.topo.Pinning[roles.Server] = b.server.cpus
	}
	var live []hop.Path
	for _, p := range s.paths {
		if _, ok := s.topo.Entries[p]; ok {
			live = append(live, p)
		}
	}
	for _, k := range s.topo.Skipped {
		s.progress.skip(k)
	}
	for _, n := range s.topo.Notes {
		if !slices.Contains(s.sr.warnings, n) {
			s.sr.warnings = append(s.sr.warnings, n)
		}
	}
	gone := len(s.paths) - len(live)
	s.progress.drop(gone*len(s.cfg.Threads)*s.cfg.Rounds, gone*len(s.cfg.Threads), gone)
	return live
}

// observers are the stage's per-round collectors, in the order a round
// begins them.
func (b *bench) observers(s *stageRun) []observer {
	serverPID := 0
	if b.server != nil {
		serverPID = b.server.pid
	}
	remote := b.hosts != nil
	obs := []observer{
		newResourceRounds(s.cells, s.topo, serverPID),
		newRelayRounds(s.cells, s.topo, s.cfg.Stats, s.cfg.Discard),
	}
	if kw := newKworkerRounds(s.cells, s.cfg.Rounds, s.placement, remote); kw != nil {
		obs = append(obs, kw)
	}
	return append(obs, newEndpointRounds(len(s.cells), s.cfg.Rounds, s.topo, remote))
}

// rounds runs the stage's interleaved rounds (Schedule). A cancelled run
// keeps each cell's completed rounds, drops the step it cut short, and
// marks the stage stopped.
func (b *bench) rounds(ctx context.Context, s *stageRun, obs []observer) error {
	series := make([]CellRounds, len(s.cells))
	for i, c := range s.cells {
		series[i] = CellRounds{Stage: s.st, Cell: c, Series: hop.Series{Samples: make([]hop.Sample, s.cfg.Rounds)}}
	}
	s.sr.series = series
	done := make([]int, len(s.cells))
	// Relays on this machine start afresh before every cycle of rounds
	// but the first (Topology.Respawn); a user's proxies and other hosts'
	// relays run through the stage.
	respawn := b.hosts == nil && len(s.cfg.Proxies) == 0
	for _, step := range Schedule(len(s.cells), s.cfg.Rounds) {
		if respawn && step.Round > 0 && step.Cell == 0 {
			if err := s.topo.Respawn(ctx, s.spec); err != nil {
				if ctx.Err() != nil {
					break
				}
				return err
			}
		}
		smp, err := b.round(ctx, s, step, obs)
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			break
		}
		series[step.Cell].Samples[step.Round] = smp
		done[step.Cell]++
		s.progress.end(s.cells[step.Cell], smp)
	}
	if ctx.Err() != nil {
		for i := range series {
			series[i].Samples = series[i].Samples[:done[i]]
		}
		s.sr.stopped = &stop{rounds: slices.Min(append(done, s.cfg.Rounds))}
	}
	return nil
}

// round runs one step: the observers begun, the client's round, the
// observers ended in reverse order. Cancelled, it returns a zero sample
// and no error, and the caller keeps nothing of the step.
func (b *bench) round(ctx context.Context, s *stageRun, step Step, obs []observer) (hop.Sample, error) {
	c := s.cells[step.Cell]
	s.progress.begin(s.at(step), c)
	argv, err := b.hosts.argv(roles.Client, s.client.Args(s.pingpong, s.topo.Entries[c.Path], c.Threads))
	if err != nil {
		return hop.Sample{}, err
	}
	for _, o := range obs {
		o.begin(ctx, step.Cell, step.Round)
	}
	if ctx.Err() != nil {
		return hop.Sample{}, nil
	}
	smp, err := b.measure(ctx, argv, s.client.Env(), s.clientCPUs)
	if ctx.Err() != nil {
		return hop.Sample{}, nil
	}
	smp = roundSample(smp, err)
	for i := len(obs) - 1; i >= 0; i-- {
		s.warn(ctx, obs[i].end(ctx, step.Cell, step.Round, smp))
	}
	return smp, nil
}

// roundSample is a round's sample as its series keeps it: a client that
// failed is the round's failure, and so is a round with no reply.
func roundSample(smp hop.Sample, err error) hop.Sample {
	switch {
	case err != nil:
		return hop.Sample{Failed: err.Error()}
	case smp.TPS == 0 && (smp.Hist == nil || smp.Hist.Count() == 0):
		// A round in which no reply came back has no figures, and a
		// p50 of 0 must not pair with its baseline's. On loopback this
		// is a reply held past the round's end, as a retransmission
		// after the 200 ms minimum RTO would hold it.
		return hop.Sample{Failed: "no request completed in the round (a reply stalled past its end)"}
	}
	return smp
}

// at places step in the run, for the progress.
func (s *stageRun) at(step Step) roundAt {
	return roundAt{st: s.st, stage: s.index, stages: s.of, step: step,
		rounds: s.cfg.Rounds, discard: s.cfg.Discard, cells: len(s.cells)}
}

// warn notes err among the stage's warnings, unless the run was
// cancelled: a component stopped by the cancel fails for that reason.
func (s *stageRun) warn(ctx context.Context, err error) {
	if err != nil && ctx.Err() == nil {
		s.sr.warnings = append(s.sr.warnings, err.Error())
		s.progress.warn(err)
	}
}

// stopIn marks the stage stopped in a phase past its rounds, which are
// all kept.
func (s *stageRun) stopIn(phase hop.StopPhase) {
	if s.sr.stopped == nil {
		s.sr.stopped = &stop{rounds: s.cfg.Rounds, phase: phase}
	}
}

// settle finishes the stage's series: the client's wake-ups, the pinning
// each component got, each series' placement, and what was skipped.
func (s *stageRun) settle() {
	series, topo := s.sr.series, s.topo
	for i := range series {
		series[i].ClientWakeUs = clientWakes(series[i].Samples, s.cfg.Discard)
	}
	for _, cr := range series {
		for _, smp := range cr.Samples {
			if smp.CPUs != "" {
				topo.Pinning[roles.Client] = smp.CPUs
			}
			for k, v := range smp.Pinning {
				topo.Pinning["client "+k] = v
			}
		}
	}
	for i := range series {
		series[i].Placement = obtained(s.st.Regime, series[i], topo, s.cfg.Discard)
	}
	s.sr.skipped, s.sr.pinning = topo.Skipped, topo.Pinning
}

// traceStage measures the tracer's floor, once a run, on the stage's
// packed direct path, and then gives each cell its traced round.
func (b *bench) traceStage(ctx context.Context, s *stageRun) error {
	if s.sr.stopped == nil && b.tracing.tr != nil && b.tracing.floorPct == nil && sharesOneCPU(s.placement) {
		if err := b.traceFloor(ctx, s); err != nil {
			return err
		}
	}
	for i := range s.cells {
		if err := b.traceCell(ctx, s, i); err != nil {
			return err
		}
	}
	return nil
}

// traceFloor measures the tracer's floor on the stage's first direct path,
// in rounds as long as the untraced ones beside a traced round.
func (b *bench) traceFloor(ctx context.Context, s *stageRun) error {
	i := slices.IndexFunc(s.cells, func(c Cell) bool { return c.Path.Relay == hop.Direct })
	if i < 0 {
		return nil
	}
	c := s.cells[i]
	floor := s.client
	floor.Time = max(tracedTime(s.cfg.Time, s.sr.series[i].Samples, s.cfg.Discard)/2, 50*time.Millisecond)
	argv, err := b.hosts.argv(roles.Client, floor.Args(s.pingpong, s.topo.Entries[c.Path], c.Threads))
	if err != nil {
		return err
	}
	s.progress.tell(event.TracerFloor{Path: c.Path})
	b.tracing.measureFloor(ctx, argv, s.client.Env(), s.clientCPUs)
	if ctx.Err() != nil {
		s.stopIn(hop.PhaseTracerFloor)
		b.tracing.floorPct, b.tracing.floorNote, b.tracing.floorFailed = nil, "tracer floor: the run was interrupted", nil
	}
	return nil
}

// traceCell gives cell i its traced round, or says why it has none.
func (b *bench) traceCell(ctx context.Context, s *stageRun, i int) error {
	cr, c := &s.sr.series[i], s.cells[i]
	switch {
	case b.tracing.tr == nil:
		cr.TraceNote = b.tracing.note
		return nil
	case s.sr.stopped != nil:
		cr.TraceNote = "the run was interrupted before its traced round"
		return nil
	}
	s.progress.trace(s.st, c)
	traced := s.client
	traced.Time = tracedTime(s.cfg.Time, cr.Samples, s.cfg.Discard)
	argv, err := b.hosts.argv(roles.Client, traced.Args(s.pingpong, s.topo.Entries[c.Path], c.Threads))
	if err != nil {
		return err
	}
	// The untraced rounds beside it are half as long: a thousand
	// requests give their p50, and the run its time back.
	beside := traced
	beside.Time = max(traced.Time/2, 50*time.Millisecond)
	besideArgv, err := b.hosts.argv(roles.Client, beside.Args(s.pingpong, s.topo.Entries[c.Path], c.Threads))
	if err != nil {
		return err
	}
	// A traced round that found no request (its records of the client
	// missing) runs once more before the path goes untraced.
	for try := 0; try < 2 && cr.Trace == nil && ctx.Err() == nil; try++ {
		cr.Trace, cr.TraceNote = b.tracedRound(ctx, s, c, argv, besideArgv)
	}
	// A traced round whose overhead is outside its band saw another
	// machine than the untraced rounds beside it: it runs once more (with
	// its own untraced rounds on either side), and if that one is outside
	// too, the split is reported as not trusted.
	if why := b.tracing.outsideBand(cr.Trace); why != nil && ctx.Err() == nil {
		s.progress.retrace(s.st, c, why)
		if again, note := b.tracedRound(ctx, s, c, argv, besideArgv); again != nil {
			cr.Trace, cr.TraceNote = again, note
		}
		if why := b.tracing.outsideBand(cr.Trace); why != nil {
			why.Twice = true
			cr.Trace.Untrusted = why
		}
	}
	if ctx.Err() != nil {
		// The round in progress saw part of its requests: no split.
		cr.Trace, cr.TraceNote = nil, "the run was interrupted in its traced round"
		s.stopIn(hop.PhaseTraced)
		return nil
	}
	s.progress.traced(c, cr.Trace, cr.TraceNote)
	return nil
}

// connectSeries runs, for every path of the stage, one connect-only
// pingpong: a series of whole connection set-ups, from which the p50 and
// p99 of what a connection costs through the path. It runs after the
// rounds, whose relay CPU is counted by then, and at the stage's first
// thread count. mysql only: echo has no handshake to speak of.
func (b *bench) connectSeries(ctx context.Context, s *stageRun) error {
	if s.cfg.Proto != ProtoMySQL || s.cfg.ConnectTime < 0 {
		return nil
	}
	client := s.client
	client.ConnectOnly, client.Time, client.Warmup = true, s.cfg.ConnectTime, 0
	done := map[hop.Path]*hop.Connect{}
	for i := range s.sr.series {
		cr := &s.sr.series[i]
		if c, ok := done[cr.Cell.Path]; ok {
			cr.Connect = c
			continue
		}
		s.progress.connect(s.st, cr.Cell.Path)
		argv, err := b.hosts.argv(roles.Client, client.Args(s.pingpong, s.topo.Entries[cr.Cell.Path], 1))
		if err != nil {
			return err
		}
		smp, err := b.measure(ctx, argv, client.Env(), s.clientCPUs)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var c *hop.Connect
		if err == nil && smp.Hist != nil && smp.Hist.Count() > 0 {
			c = &hop.Connect{P50Us: smp.Latency.P50, P99Us: smp.Latency.P99, N: smp.Hist.Count()}
		}
		s.progress.connected(cr.Cell.Path, c, err)
		done[cr.Cell.Path] = c
		cr.Connect = c
	}
	return nil
}
