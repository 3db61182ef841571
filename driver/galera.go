package driver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/locate"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// The Galera bench's hosts: app holds sysbench and the proxies; the
// nodes are galera1…
const galeraApp = "app"

func galeraNode(i int) string { return "galera" + strconv.Itoa(i+1) }

// galeraCheckUser is the account HAProxy's option mysql-check logs in as.
const galeraCheckUser = "haproxy"

// Galera is hopbench galera: it builds a MariaDB Galera cluster in
// network namespaces (app for sysbench and the proxies, galera1… for the
// nodes, on one bridge), prepares sysbench's tables once, starts each
// path's proxy in front of every node through the components every
// hopbench run builds (Build: HAProxy and hoprelay, as a cluster backend's
// paths), runs every workload on every path in interleaved rounds, and
// returns the table. Everything it started and made is stopped and
// removed before it returns, ctx's cancellation included. Its steps, and
// the hosts' and the cluster's (event.HostStep, event.NodeStep), go to
// progress as events (nil for none).
func Galera(ctx context.Context, cfg cluster.BenchConfig, progress event.Sink) (*cluster.Report, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if progress == nil {
		progress = discard{}
	}
	sysbench, err := locate.Find("sysbench")
	if err != nil {
		return nil, fmt.Errorf("galera: %w (install sysbench, or run make deps)", err)
	}
	programs, err := galeraPrograms(cfg)
	if err != nil {
		return nil, err
	}
	tb, cl, err := upGalera(ctx, cfg, progress)
	if tb != nil {
		defer tb.Close()
	}
	if cl != nil {
		defer cl.Close()
	}
	if err != nil {
		return nil, err
	}
	rep := galeraReport(ctx, cfg, cl)
	b := &galeraBench{cfg: cfg, progress: progress, tb: tb, cl: cl, sysbench: sysbench, programs: programs}
	defer b.stopPaths()
	if err := b.prepare(ctx); err != nil {
		return nil, err
	}
	targets, err := b.startPaths(ctx)
	if err != nil {
		return nil, err
	}
	for _, w := range cfg.Workloads {
		rows, err := b.workload(ctx, w, targets)
		if err != nil {
			return nil, err
		}
		rep.Rows = append(rep.Rows, rows...)
	}
	return rep, nil
}

// upGalera brings up the namespaces and a Synced cluster of cfg.Nodes,
// their steps told to progress. What it returns is the caller's to close,
// on error too.
func upGalera(ctx context.Context, cfg cluster.BenchConfig, progress event.Sink) (*hosts.Testbed, *cluster.Cluster, error) {
	hs := []hosts.Host{{Name: galeraApp, Kind: hosts.NetNS, Namespace: galeraApp}}
	var nodes []string
	for i := range cfg.Nodes {
		hs = append(hs, hosts.Host{Name: galeraNode(i), Kind: hosts.NetNS, Namespace: galeraNode(i)})
		nodes = append(nodes, galeraNode(i))
	}
	tb, err := hosts.Up(ctx, hs, hosts.Options{Steps: hostSteps(progress)})
	if err != nil {
		return nil, nil, err
	}
	cl, err := cluster.Start(ctx, tb, cluster.Config{Nodes: nodes, CheckUser: galeraCheckUser,
		SST: cfg.SST, BufferPool: cfg.BufferPool, Steps: nodeSteps(progress)})
	return tb, cl, err
}

// galeraPrograms finds, before anything is built, the programs cfg's
// paths run: HAProxy for its path, hoprelay (cfg.Hoprelay where set) for
// the engines'. The Locator it returns hands them to Build.
func galeraPrograms(cfg cluster.BenchConfig) (Locator, error) {
	found := map[string]string{}
	for _, p := range cfg.Paths {
		switch {
		case p == cluster.PathDirect:
		case p == cluster.PathHAProxy:
			bin, err := locate.Find("haproxy")
			if err != nil {
				return nil, fmt.Errorf("galera: %w (install haproxy, or run make deps)", err)
			}
			found["haproxy"] = bin
		case found["hoprelay"] == "":
			bin := cfg.Hoprelay
			if bin == "" {
				var err error
				if bin, err = locate.Program("hoprelay"); err != nil {
					return nil, fmt.Errorf("galera: %w (run make build)", err)
				}
			}
			found["hoprelay"] = bin
		}
	}
	return func(name string) (string, error) {
		if bin, ok := found[name]; ok {
			return bin, nil
		}
		return Locate(name)
	}, nil
}

// galeraReport is the table's heading: the configuration, the nodes, and
// the server's and the provider's versions where the cluster says them.
func galeraReport(ctx context.Context, cfg cluster.BenchConfig, cl *cluster.Cluster) *cluster.Report {
	rep := &cluster.Report{Config: cfg}
	for _, n := range cl.Nodes() {
		rep.Nodes = append(rep.Nodes, n.Endpoint())
	}
	if rows, err := cl.Query(ctx, 0, "SELECT VERSION()"); err == nil && len(rows) == 1 && len(rows[0]) == 1 {
		rep.Version = rows[0][0]
	}
	if m, err := cl.GlobalStatus(ctx, 0, "wsrep_provider_version"); err == nil {
		rep.Wsrep = m["wsrep_provider_version"]
	}
	return rep
}

type galeraBench struct {
	cfg      cluster.BenchConfig
	progress event.Sink
	tb       *hosts.Testbed
	cl       *cluster.Cluster
	sysbench string
	programs Locator
	paths    []*Topology // each proxy path's, stopped at the end
}

// galeraTarget is where a path's client connects, inside the app
// namespace.
type galeraTarget struct {
	host string
	port int
	err  error // the path could not be started
}

// workload runs one workload on every path. Its paths run in interleaved
// rounds (direct, haproxy, goroutine, …, then again), so that a drift of
// the machine over the rounds falls on every path alike; each row keeps
// its median run.
func (b *galeraBench) workload(ctx context.Context, w string, targets map[string]galeraTarget) ([]cluster.Row, error) {
	cfg := b.cfg
	rows := make([]cluster.Row, len(cfg.Paths))
	for i, p := range cfg.Paths {
		rows[i] = cluster.Row{Workload: w, Path: p, Threads: cfg.ProxyThreads}
		if p == cluster.PathDirect {
			rows[i].Threads = cfg.DirectThreads
		}
		rows[i].Err = targets[p].err
	}
	for round := range cfg.Runs {
		if cfg.Runs > 1 {
			b.progress.Event(event.GaleraRound{Workload: w, Round: round, Rounds: cfg.Runs})
		}
		for i, p := range cfg.Paths {
			row := &rows[i]
			if row.Err != nil {
				continue
			}
			res, conns, err := b.run(ctx, w, p, targets[p], row.Threads)
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("galera: %w", context.Cause(ctx))
			}
			if err != nil {
				row.Err = err
				b.progress.Event(event.GaleraFailed{Workload: w, Path: p, Err: err})
				continue
			}
			row.AddRun(res, conns)
		}
	}
	for i := range rows {
		rows[i].PickMedian()
	}
	return rows, nil
}

func (b *galeraBench) sysbenchFor(test string, t galeraTarget, threads int) cluster.Sysbench {
	user, pw, db := b.cl.Account()
	return cluster.Sysbench{Test: test, Host: t.host, Port: t.port, User: user, Password: pw, DB: db,
		Tables: b.cfg.Tables, TableSize: b.cfg.TableSize, Threads: threads, Time: b.cfg.Time,
		IgnoreErrors: b.cfg.IgnoreErrors}
}

// prepare creates and loads sysbench's tables once, through the first
// node; Galera replicates them to the others.
func (b *galeraBench) prepare(ctx context.Context) error {
	n := b.cl.Nodes()[0]
	s := b.sysbenchFor(cluster.ReadWrite, galeraTarget{host: n.Addr, port: n.Port}, min(b.cfg.Tables, 4))
	b.progress.Event(event.GaleraPreparing{Tables: b.cfg.Tables, TableSize: b.cfg.TableSize, Node: n.Name})
	start := time.Now()
	if _, err := b.tb.Run(ctx, galeraApp, append([]string{b.sysbench}, s.Args("prepare")...)...); err != nil {
		return fmt.Errorf("galera: sysbench prepare: %w", err)
	}
	b.progress.Event(event.GaleraPrepared{Took: time.Since(start)})
	return nil
}

// startPaths starts each proxy path in the app namespace in front of
// every node, and waits until a client gets through each; a path that
// does not come up is recorded, not fatal. The direct path is the first
// node.
func (b *galeraBench) startPaths(ctx context.Context) (map[string]galeraTarget, error) {
	nodes := b.cl.Nodes()
	servers := make([]sockets.Addr, len(nodes))
	for i, n := range nodes {
		a, err := sockets.Parse("tcp:" + n.Endpoint())
		if err != nil {
			return nil, err
		}
		servers[i] = a
	}
	dir, err := b.tb.Dir(ctx, galeraApp)
	if err != nil {
		return nil, err
	}
	spec := TopologySpec{TempRoot: dir, Locate: b.programs, Hosts: galeraBed(b.tb),
		Backend: Backend{TCP: &servers[0], Servers: servers, CheckUser: galeraCheckUser}}
	targets := map[string]galeraTarget{}
	for _, p := range b.cfg.Paths {
		if p == cluster.PathDirect {
			targets[p] = galeraTarget{host: nodes[0].Addr, port: nodes[0].Port}
			continue
		}
		t, err := b.startPath(ctx, spec, p)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("galera: %w", context.Cause(ctx))
		}
		if err != nil {
			t.err = fmt.Errorf("did not start: %w", err)
		}
		b.progress.Event(event.GaleraPath{Path: p, Host: t.host, Port: t.port, Nodes: len(nodes), Err: t.err})
		targets[p] = t
	}
	return targets, nil
}

// startPath builds path p's topology alone, so that one path's failure
// is its row's and not the run's, and waits until a login gets through
// its proxy to a node.
func (b *galeraBench) startPath(ctx context.Context, spec TopologySpec, p string) (galeraTarget, error) {
	relay, err := hop.ParseRelay(p)
	if err != nil {
		return galeraTarget{}, err
	}
	path := hop.Path{Relay: relay, Client: hop.TCP, Upstream: hop.TCP, Hops: 1}
	spec.Paths = []hop.Path{path}
	topo, err := Build(ctx, spec)
	if err != nil {
		return galeraTarget{}, err
	}
	b.paths = append(b.paths, topo)
	if len(topo.Skipped) > 0 {
		return galeraTarget{}, errors.New(topo.Skipped[0].Reason)
	}
	entry := topo.Entries[path]
	t := galeraTarget{host: entry.Host, port: entry.Port}
	var proc *hosts.Process
	if procs := topo.relayProcs[path]; len(procs) > 0 {
		proc = procs[0]
	}
	return t, b.cl.WaitLogin(ctx, galeraApp, t.host, t.port, proc)
}

// stopPaths stops every path's proxy.
func (b *galeraBench) stopPaths() {
	for _, t := range b.paths {
		t.Stop()
	}
}

// galeraBed places the client and every relay on the app host of tb, and
// the backend on the first node: the hosts' addresses and kinds as tb has
// them.
func galeraBed(tb *hosts.Testbed) *hostBed {
	hb := &hostBed{tp: &hosts.TopologyFile{}, tb: tb, kind: map[string]hosts.Kind{}, addr: map[string]string{},
		on: map[string]string{roles.Client: galeraApp, roles.Relay: galeraApp, roles.Server: galeraNode(0), hosts.Backend: galeraNode(0)}}
	for _, in := range tb.Hosts() {
		hb.kind[in.Name], hb.addr[in.Name] = in.Kind, in.Address
	}
	return hb
}

// run runs one sysbench and reads its report, handing its per-second lines
// to the progress.
func (b *galeraBench) run(ctx context.Context, test, path string, t galeraTarget, threads int) (cluster.Result, []int64, error) {
	b.progress.Event(event.GaleraRun{Workload: test, Path: path, Host: t.host, Port: t.port, Threads: threads, Time: b.cfg.Time})
	before := b.connections(ctx)
	var out bytes.Buffer
	lw := &lineWriter{line: func(l []byte) {
		// sysbench's per-second lines begin with '['.
		if len(bytes.TrimSpace(l)) > 0 && l[0] == '[' {
			b.progress.Event(event.SysbenchLine{Workload: test, Path: path, Line: string(l)})
		}
	}}
	s := b.sysbenchFor(test, t, threads)
	proc, err := b.tb.Start(ctx, galeraApp, hosts.Command{Name: "sysbench " + test,
		Argv: append([]string{b.sysbench}, s.Args("run")...), Stdout: io.MultiWriter(&out, lw)})
	if err != nil {
		return cluster.Result{}, nil, err
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		proc.Stop()
		return cluster.Result{}, nil, context.Cause(ctx)
	}
	werr := proc.Wait()
	res, err := cluster.ParseSysbench(out.Bytes())
	if err != nil {
		if werr != nil {
			err = fmt.Errorf("%w (%v)", err, werr)
		}
		return res, nil, err
	}
	after := b.connections(ctx)
	var delta []int64
	if before != nil && after != nil {
		for i := range before {
			delta = append(delta, after[i]-before[i])
		}
	}
	return res, delta, nil
}

// connections reads every node's Connections counter (connection
// attempts, successful or not), nil if any node does not answer.
func (b *galeraBench) connections(ctx context.Context) []int64 {
	out := make([]int64, len(b.cl.Nodes()))
	for i := range b.cl.Nodes() {
		m, err := b.cl.GlobalStatus(ctx, i, "Connections")
		if err != nil {
			return nil
		}
		out[i], _ = strconv.ParseInt(m["connections"], 10, 64)
	}
	return out
}
