package driver

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// A sweep is RonDB's autobench with several clients and servers: the
// instances run at once, instance i against server i mod the servers, in
// lock-step through the thread sweep (every instance's run at one thread
// count ends before any starts the next), and the report gives each
// instance's tps and their sum per thread count. It measures a cluster's
// throughput, not a hop: only the direct TCP path runs, and the probe,
// the tracer and the per-hop split do not.

// Sweeping reports whether c runs a sweep rather than the path matrix:
// several client instances, several backends, or several server hosts.
func (c Config) Sweeping() bool {
	return c.Instances > 1 || len(c.Backends) > 1 || c.Hosts != nil && len(c.Hosts.Servers) > 1
}

// checkSweep refuses what a sweep does not run.
func (c Config) checkSweep() error {
	switch {
	case len(c.Hops) > 0:
		return errors.New("driver: sweep: --hops builds chains of relays; a sweep of client instances runs direct paths")
	case len(c.Backends) > 1 && c.Hosts != nil && len(c.Hosts.Servers) > 1:
		return errors.New("driver: sweep: several backends and several SERVER_HOST hosts: give the servers one way")
	case len(c.Backends) > 1 && c.Hosts != nil && len(c.Hosts.BackendStart) > 0:
		return errors.New("driver: sweep: BACKEND_START starts one backend; start several servers before the run")
	}
	for _, r := range c.Relays {
		if r != hop.Direct {
			return fmt.Errorf("driver: sweep: path %s: a sweep of client instances runs the direct path (--paths direct)", r)
		}
	}
	return nil
}

// sweepTarget is one server of a sweep.
type sweepTarget struct {
	info    hop.SweepServer
	addr    sockets.Addr
	backend Backend
}

// withServer is the testbed with the server component on host h: where
// one of several embedded responders runs.
func (hb *hostBed) withServer(h string) *hostBed {
	if hb == nil {
		return nil
	}
	c := *hb
	c.on = maps.Clone(hb.on)
	c.on[roles.Server] = h
	return &c
}

// sweepRun is one sweep: what it runs, on which regime's placement, and
// the servers (targets) whose topologies it started (topos, stopped when it
// ends).
type sweepRun struct {
	cfg       Config
	pingpong  string
	st        Stage
	regime    Regime
	instances int
	targets   []sweepTarget
	topos     []*Topology
}

// sweepPath is the one path a sweep runs.
var sweepPath = hop.Path{Relay: hop.Direct, Client: hop.TCP, Upstream: hop.TCP}

// sweep runs cfg as a sweep and reports it.
func (b *bench) sweep(ctx context.Context, cfg Config, pingpong string, began time.Time) (_ *hop.Report, err error) {
	if err := cfg.checkSweep(); err != nil {
		return nil, err
	}
	regimes, err := cfg.regimes()
	if err != nil {
		return nil, err
	}
	sr := &sweepRun{cfg: cfg, pingpong: pingpong, regime: regimes[0], instances: max(1, cfg.Instances)}
	sr.st = Stages(cfg.ServiceTimes, cfg.Sizes, cfg.Rows)[0]
	sr.st.Regime = sr.regime.Name
	g := sr.regime
	rep := &hop.Report{Schema: hop.Schema, Config: reportConfig(cfg, []hop.Path{sweepPath}), Env: cfg.Env(), Skipped: []hop.Skip{}, Paths: []hop.PathResult{}}
	rep.Regimes = []hop.RegimeInfo{{Name: g.Name, Placement: g.Placement.String(), Places: g.Places()}}
	defer func() {
		for _, t := range sr.topos {
			if serr := t.Stop(); serr != nil && ctx.Err() == nil {
				rep.Warn(serr.Error())
			}
		}
	}()
	if err := b.sweepTargets(ctx, sr); err != nil {
		return nil, err
	}
	sw := &hop.Sweep{Instances: sr.instances}
	for _, t := range sr.targets {
		sw.Servers = append(sw.Servers, t.info)
	}
	rep.Sweep = sw
	cfg.Progress.Event(event.SweepBegun{Instances: sr.instances, Servers: len(sr.targets), Threads: cfg.Threads, Runs: cfg.Rounds, Time: cfg.Time})
	for _, threads := range cfg.Threads {
		row, err := b.sweepRow(ctx, sr, threads)
		if err != nil {
			return nil, err
		}
		sw.Rows = append(sw.Rows, row)
	}
	b.hosts.describe(rep, cfg.Backend)
	rep.Verdicts = []string{} // package present names the suspect sums (present.Verdicts)
	rep.Elapsed = time.Since(began).Seconds()
	return rep, nil
}

// sweepTargets starts a topology for each server of the sweep: each
// backend named, the embedded responder on each server host, or the one
// backend.
func (b *bench) sweepTargets(ctx context.Context, sr *sweepRun) error {
	cfg := sr.cfg
	add := func(be Backend, hb *hostBed, name, host string) error {
		t, err := b.sweepTopology(ctx, sr, be, hb)
		if err != nil {
			return err
		}
		addr := t.Entries[sweepPath]
		sr.targets = append(sr.targets, sweepTarget{info: hop.SweepServer{Name: name, Address: addr.String(), Host: host}, addr: addr, backend: be})
		return nil
	}
	switch {
	case len(cfg.Backends) > 1:
		for i, be := range cfg.Backends {
			hb := b.hosts
			if i > 0 && hb != nil && len(hb.tp.BackendStart) > 0 {
				hb = nil // checkSweep refused this; never start it twice
			}
			if err := add(be, hb, be.String(), ""); err != nil {
				return err
			}
		}
	case cfg.Backend.Embedded() && b.hosts != nil:
		for _, h := range b.hosts.tp.Servers {
			if err := add(cfg.Backend, b.hosts.withServer(h), "embedded on "+h, h); err != nil {
				return err
			}
		}
	default:
		name := cfg.Backend.String()
		if cfg.Backend.Embedded() {
			name = "embedded"
		}
		return add(cfg.Backend, b.hosts, name, "")
	}
	return nil
}

// sweepTopology starts one server's topology: the direct TCP path to be.
func (b *bench) sweepTopology(ctx context.Context, sr *sweepRun, be Backend, hb *hostBed) (*Topology, error) {
	cfg, st, g := sr.cfg, sr.st, sr.regime
	t, err := Build(ctx, TopologySpec{
		TempRoot: cfg.TempRoot,
		Backend:  be,
		Responder: Responder{
			Proto: cfg.Proto, ServiceTime: st.ServiceTime, Rows: st.Rows, RowBytes: rowBytes(cfg, st),
			User: cfg.User, Password: cfg.Password, CPUs: cpusOf(g.Placement, roles.Server),
		},
		Nice: cfg.Nice, Paths: []hop.Path{sweepPath}, Placement: g.Placement, Locate: cfg.Locate, Hosts: hb,
	})
	if err != nil {
		return nil, err
	}
	sr.topos = append(sr.topos, t)
	if _, ok := t.Entries[sweepPath]; !ok {
		return nil, fmt.Errorf("driver: sweep: server %s has no TCP address", be)
	}
	return t, nil
}

// sweepRow runs the sweep's runs at one thread count and sums them.
func (b *bench) sweepRow(ctx context.Context, sr *sweepRun, threads int) (hop.SweepRow, error) {
	cfg := sr.cfg
	row := hop.SweepRow{Threads: threads, Instances: make([]hop.SweepInstance, sr.instances)}
	samples := make([][]hop.Sample, sr.instances)
	for run := range cfg.Rounds {
		got, err := b.sweepOnce(ctx, sr, threads)
		if err != nil {
			return row, err
		}
		sum := 0.0
		for i, smp := range got {
			samples[i] = append(samples[i], smp)
			sum += smp.TPS
		}
		row.RunsTPS = append(row.RunsTPS, sum)
		cfg.Progress.Event(event.SweepRun{Threads: threads, Run: run, Runs: cfg.Rounds, TPS: sum, Instances: sr.instances})
	}
	for i := range sr.instances {
		in := sweepInstance(samples[i], cfg.Discard)
		in.Instance, in.Server = i+1, i%len(sr.targets)
		row.MeanTPS += in.TPS
		row.Errors += in.Errors
		row.Ignored += in.Ignored
		row.Instances[i] = in
	}
	return row, nil
}

// sweepOnce runs every instance once, in lock-step: every instance of this
// run starts together and the next run waits for the last of them.
func (b *bench) sweepOnce(ctx context.Context, sr *sweepRun, threads int) ([]hop.Sample, error) {
	clientCPUs, _ := sr.regime.Placement.For(roles.Client)
	var wg sync.WaitGroup
	got := make([]hop.Sample, sr.instances)
	for i := range sr.instances {
		tg := sr.targets[i%len(sr.targets)]
		client := clientFor(sr.cfg, sr.st, sr.regime.Placement)
		if !tg.backend.Embedded() {
			client.User, client.Password, client.DB = tg.backend.User, tg.backend.Password, tg.backend.DB
		}
		client.RXStamps = false
		argv, err := b.hosts.argv(roles.Client, client.Args(sr.pingpong, tg.addr, threads))
		if err != nil {
			wg.Wait()
			return nil, err
		}
		wg.Go(func() {
			smp, err := b.measure(ctx, argv, client.Env(), clientCPUs)
			if err != nil {
				smp = hop.Sample{Failed: err.Error()}
			}
			got[i] = smp
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return got, nil
}

// sweepInstance is one instance's figures at a thread count: the mean of
// its kept runs' tps and p95, its errors and ignored statements summed,
// and its first failed run.
func sweepInstance(samples []hop.Sample, discard int) hop.SweepInstance {
	var in hop.SweepInstance
	kept := 0
	for r, smp := range samples {
		if smp.Failed != "" && in.Failed == "" {
			in.Failed = fmt.Sprintf("run %d: %s", r+1, smp.Failed)
		}
		if r < discard {
			continue
		}
		kept++
		in.TPS += smp.TPS
		in.P95Us += smp.Latency.P95
		in.Errors += smp.Errors
		in.Ignored += smp.Ignored
	}
	if kept > 0 {
		in.TPS /= float64(kept)
		in.P95Us /= float64(kept)
	}
	return in
}
