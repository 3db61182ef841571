package driver

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/affinity"
	"github.com/hoplat/hoplat/results/hop"
)

// Run builds each stage's topology, runs every path in interleaved rounds,
// stops everything, and explains the result. Cancelling ctx stops the run
// at once, every process with it; Run then returns ctx's error.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	return (&bench{measure: RunClient}).run(ctx, cfg)
}

// bench is one run; measure is swapped for a stand-in in tests.
type bench struct {
	measure func(ctx context.Context, argv, env []string, cpus affinity.CPUSet) (Sample, error)
	hosts   *hostBed // a topology run's hosts; nil on loopback
}

func (b *bench) run(ctx context.Context, cfg Config) (out *Report, err error) {
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
	paths := cfg.Paths()
	stages := Stages(cfg.ServiceTimes, cfg.Sizes, cfg.Rows)
	progress := newProgress(cfg.Progress, len(stages)*cfg.Rounds*len(paths)*len(cfg.Threads), cfg.Time+cfg.Warmup)
	var all []Series
	rep := &Report{Schema: Schema, Config: reportConfig(cfg, paths), Env: cfg.Env(), Skipped: []Skip{}}
	pinning := map[string]string{}
	for si, st := range stages {
		sr, err := b.runStage(ctx, cfg, pingpong, paths, st, si, len(stages), progress)
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
		rep.Warnings = append(rep.Warnings, sr.warnings...)
	}
	rep.Paths, rep.Chains = Analyze(all, cfg.Discard, cfg.Hops)
	if len(pinning) > 0 {
		rep.Env.Pinning = pinning
	}
	b.hosts.describe(rep, cfg.Backend)
	rep.Verdicts = hop.Verdicts(rep)
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

// stageResult is what one stage measured and noticed.
type stageResult struct {
	series   []Series
	skipped  []Skip
	pinning  map[string]string
	warnings []string // a component that failed to stop cleanly: the figures stand, the report says so
}

func (b *bench) runStage(ctx context.Context, cfg Config, pingpong string, paths []Path, st Stage, si, nstages int, progress *progress) (sr stageResult, err error) {
	// sr is a named result so that the deferred Stop's warnings reach
	// the caller.
	topo, err := Build(ctx, TopologySpec{
		TempRoot: cfg.TempRoot,
		Backend:  cfg.Backend,
		Responder: Responder{
			Proto: cfg.Proto, ServiceTime: st.ServiceTime, Rows: st.Rows, RowBytes: rowBytes(cfg, st),
			User: cfg.User, Password: cfg.Password, CPUs: cpusOf(cfg.Placement, ComponentServer),
		},
		Nice:      cfg.Nice,
		Paths:     paths,
		Relay:     HopRelay{Lock: cfg.RelayLock, CPUs: cpusOf(cfg.Placement, ComponentRelay)},
		Stats:     cfg.Stats,
		Placement: cfg.Placement,
		Locate:    cfg.Locate,
		Hosts:     b.hosts,
	})
	if err != nil {
		return stageResult{}, err
	}
	warn := func(err error) {
		if err != nil && ctx.Err() == nil {
			sr.warnings = append(sr.warnings, err.Error())
			progress.warn(err)
		}
	}
	defer func() { warn(topo.Stop()) }()
	var live []Path
	for _, p := range paths {
		if _, ok := topo.Entries[p]; ok {
			live = append(live, p)
		}
	}
	for _, s := range topo.Skipped {
		progress.skip(s)
	}
	progress.drop((len(paths) - len(live)) * len(cfg.Threads) * cfg.Rounds)
	cells := Cells(live, cfg.Threads)
	sr.series = make([]Series, len(cells))
	for i, c := range cells {
		sr.series[i] = Series{Stage: st, Cell: c, Samples: make([]Sample, cfg.Rounds)}
	}
	client := clientFor(cfg, st)
	clientCPUs, _ := cfg.Placement.For(ComponentClient)
	for _, step := range Schedule(len(cells), cfg.Rounds) {
		c := cells[step.Cell]
		progress.begin(si, nstages, step, cfg.Rounds, cfg.Discard, len(cells), c)
		argv, err := b.hosts.argv(ComponentClient, client.Args(pingpong, topo.Entries[c.Path], c.Threads))
		if err != nil {
			return stageResult{}, err
		}
		smp, err := b.measure(ctx, argv, client.Env(), clientCPUs)
		if ctx.Err() != nil {
			return stageResult{}, ctx.Err()
		}
		if err != nil {
			smp = Sample{Failed: err.Error()}
		}
		sr.series[step.Cell].Samples[step.Round] = smp
		progress.end(smp)
	}
	if cfg.Stats {
		// hoprelay writes its stats as it exits; the files stay in the
		// temp dir until the deferred Stop.
		warn(topo.stopProcesses())
		for i := range sr.series {
			sr.series[i].RelayUs = relayResidence(topo.Stats[sr.series[i].Cell.Path])
		}
	}
	for _, s := range sr.series {
		for _, smp := range s.Samples {
			if smp.CPUs != "" {
				topo.Pinning[ComponentClient] = smp.CPUs
			}
			for k, v := range smp.Pinning {
				topo.Pinning["client "+k] = v
			}
		}
	}
	sr.skipped, sr.pinning = topo.Skipped, topo.Pinning
	return sr, nil
}

func clientFor(cfg Config, st Stage) Client {
	c := Client{
		Proto: cfg.Proto, Command: cfg.Command, Time: cfg.Time, Warmup: cfg.Warmup,
		CPUs: cpusOf(cfg.Placement, ComponentClient),
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

func reportConfig(cfg Config, paths []Path) ReportConfig {
	rc := ReportConfig{
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
func FirstFailure(rep *Report) *Failure {
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
func Unmeasured(rep *Report) error {
	var none []string
	for _, p := range rep.Paths {
		if !slices.ContainsFunc(p.Rounds, func(r Round) bool { return r.Kept }) {
			none = append(none, pathLabel(p))
		}
	}
	if len(none) == 0 {
		return nil
	}
	return fmt.Errorf("no successful round on %d of %d paths: %s", len(none), len(rep.Paths), strings.Join(none, ", "))
}

func pathLabel(p PathResult) string {
	return fmt.Sprintf("%s (%d threads)", p.Name, p.Threads)
}
