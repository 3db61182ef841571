package cluster

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/locate"
	"github.com/hoplat/hoplat/proxyconf"
	"github.com/hoplat/hoplat/roles"
	"github.com/hoplat/hoplat/sockets"
)

// Paths a Bench runs: the one server (the first node, directly), HAProxy
// in front of the three, and each hoprelay engine in front of the three.
const (
	PathDirect  = "direct"
	PathHAProxy = "haproxy"
)

// DefaultPaths is every path: direct, haproxy and each relay engine.
func DefaultPaths() []string {
	return append([]string{PathDirect, PathHAProxy}, roles.Engines...)
}

// Published are field-notes.md §4's figures (transactions per second, one
// run each on another machine with its own table size): printed beside
// this machine's as context, never compared with them.
var Published = map[string]map[string]float64{
	ReadOnly:  {PathDirect: 1309, PathHAProxy: 2821.9},
	WriteOnly: {PathDirect: 236.6, PathHAProxy: 73.6},
	ReadWrite: {PathDirect: 560.1, PathHAProxy: 71.7},
}

// PublishedNote is what the published figures carry beyond tps.
var PublishedNote = map[string]map[string]string{
	ReadWrite: {PathHAProxy: "118 ignored errors"},
}

// BenchConfig tunes Bench. The zero value runs §4 as published, sized for
// this machine where the notes give no size: 10 tables of 10000 rows, 10 s
// per run.
type BenchConfig struct {
	Workloads []string // nil for Workloads
	Paths     []string // nil for DefaultPaths()
	Tables    int      // 0 for 10
	TableSize int      // 0 for 10000
	Time      time.Duration
	// DirectThreads and ProxyThreads are sysbench's --threads against one
	// server and through a proxy; 0 for §4's 150 and 450.
	DirectThreads, ProxyThreads int
	// IgnoreErrors is sysbench's --mysql-ignore-errors; "" for
	// DefaultIgnoreErrors.
	IgnoreErrors string
	// Runs is how many interleaved rounds of every path each workload
	// gets; 0 for 1, as §4 ran.
	Runs int
	// Nodes is the cluster's size; 0 for 3.
	Nodes int
	// SST, BufferPool: Config's.
	SST, BufferPool string
	// Hoprelay is hoprelay's path; "" finds it next to this executable or
	// on PATH.
	Hoprelay string
	// Progress receives the steps and sysbench's per-second lines; nil for
	// none.
	Progress io.Writer
}

func (c *BenchConfig) defaults() {
	if c.Workloads == nil {
		c.Workloads = Workloads
	}
	if c.Paths == nil {
		c.Paths = DefaultPaths()
	}
	if c.Tables == 0 {
		c.Tables = 10
	}
	if c.TableSize == 0 {
		c.TableSize = 10000
	}
	if c.Time == 0 {
		c.Time = 10 * time.Second
	}
	if c.DirectThreads == 0 {
		c.DirectThreads = 150
	}
	if c.ProxyThreads == 0 {
		c.ProxyThreads = 450
	}
	if c.IgnoreErrors == "" {
		c.IgnoreErrors = DefaultIgnoreErrors
	}
	if c.Nodes == 0 {
		c.Nodes = 3
	}
	if c.Runs == 0 {
		c.Runs = 1
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
}

// Check reports a config Bench would refuse.
func (c BenchConfig) Check() error {
	c.defaults()
	for _, w := range c.Workloads {
		if !slices.Contains(Workloads, w) {
			return fmt.Errorf("galera: workload %q: want %s", w, strings.Join(Workloads, ", "))
		}
	}
	for _, p := range c.Paths {
		if !slices.Contains(DefaultPaths(), p) {
			return fmt.Errorf("galera: path %q: want %s", p, strings.Join(DefaultPaths(), ", "))
		}
	}
	switch {
	case c.Runs < 1:
		return fmt.Errorf("galera: %d runs: want at least 1", c.Runs)
	case c.Nodes < 1 || c.Nodes > 9:
		return fmt.Errorf("galera: %d nodes: want 1 to 9", c.Nodes)
	case c.Tables < 1 || c.TableSize < 1:
		return fmt.Errorf("galera: %d tables of %d rows: want at least one of one", c.Tables, c.TableSize)
	case c.Time < time.Second:
		return fmt.Errorf("galera: time %v: want at least 1s (sysbench counts whole seconds)", c.Time)
	case c.DirectThreads < 1 || c.ProxyThreads < 1:
		return errors.New("galera: threads: want at least 1")
	}
	return nil
}

// Row is one run of the table.
type Row struct {
	Workload string
	Path     string
	Threads  int
	Result   Result
	// NodeConnections is how many connections each node accepted during
	// the run (its Connections counter: HAProxy's checks and the status
	// query that reads it included).
	NodeConnections []int64
	// Runs are every round's results, in order; Result is the one of
	// median tps.
	Runs     []Result
	runConns [][]int64
	Err      error
}

// Report is a Bench's table and what it ran on.
type Report struct {
	Config  BenchConfig
	Version string // the nodes' MariaDB
	Wsrep   string // the provider's version
	Nodes   []string
	Rows    []Row
}

// The app host holds the client and the proxies; the nodes are galera1…
const appHost = "app"

func nodeHost(i int) string { return "galera" + strconv.Itoa(i+1) }

// Ports of the proxies inside the app namespace, which is new and empty,
// so fixed ports cannot be taken.
const (
	haproxyPort = 4000
	relayPort   = 4001 // + the engine's index
)

// Bench builds the cluster in namespaces (app for sysbench and the
// proxies, galera1… for the nodes, on one bridge), prepares sysbench's
// tables once, runs every workload on every path in turn, and returns the
// table. Everything it started and made is stopped and removed before it
// returns, ctx's cancellation included.
func Bench(ctx context.Context, cfg BenchConfig) (*Report, error) {
	cfg.defaults()
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	sysbench, err := locate.Find("sysbench")
	if err != nil {
		return nil, fmt.Errorf("galera: %w (install sysbench, or run make deps)", err)
	}
	haproxy, hoprelay, err := proxyPrograms(cfg)
	if err != nil {
		return nil, err
	}
	hs := []hosts.Host{{Name: appHost, Kind: hosts.NetNS, Namespace: appHost}}
	var nodes []string
	for i := range cfg.Nodes {
		hs = append(hs, hosts.Host{Name: nodeHost(i), Kind: hosts.NetNS, Namespace: nodeHost(i)})
		nodes = append(nodes, nodeHost(i))
	}
	tb, err := hosts.Up(ctx, hs, hosts.Options{Log: cfg.Progress})
	if err != nil {
		return nil, err
	}
	defer tb.Close()
	cl, err := Start(ctx, tb, Config{Nodes: nodes, CheckUser: "haproxy", SST: cfg.SST, BufferPool: cfg.BufferPool, Log: cfg.Progress})
	if cl != nil {
		defer cl.Close()
	}
	if err != nil {
		return nil, err
	}
	rep := newReport(ctx, cfg, cl)
	b := &bench{cfg: cfg, tb: tb, cl: cl, sysbench: sysbench}
	if err := b.prepare(ctx); err != nil {
		return nil, err
	}
	targets, err := b.startPaths(ctx, haproxy, hoprelay)
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

// proxyPrograms finds the programs cfg's paths run: HAProxy for its path,
// hoprelay for the engines' ("" where no path needs it).
func proxyPrograms(cfg BenchConfig) (haproxy, hoprelay string, err error) {
	for _, p := range cfg.Paths {
		switch p {
		case PathDirect:
		case PathHAProxy:
			if haproxy, err = locate.Find("haproxy"); err != nil {
				return "", "", fmt.Errorf("galera: %w (install haproxy, or run make deps)", err)
			}
		default:
			if hoprelay != "" {
				continue
			}
			hoprelay = cfg.Hoprelay
			if hoprelay == "" {
				if hoprelay, err = locate.Program("hoprelay"); err != nil {
					return "", "", fmt.Errorf("galera: %w (run make build)", err)
				}
			}
		}
	}
	return haproxy, hoprelay, nil
}

// newReport is the table's heading: the configuration, the nodes, and the
// server's and the provider's versions where the cluster says them.
func newReport(ctx context.Context, cfg BenchConfig, cl *Cluster) *Report {
	rep := &Report{Config: cfg}
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

// workload runs one workload on every path. Its paths run in interleaved
// rounds (direct, haproxy, goroutine, …, then again), so that a drift of
// the machine over the rounds falls on every path alike; each row keeps
// its median run.
func (b *bench) workload(ctx context.Context, w string, targets map[string]target) ([]Row, error) {
	cfg := b.cfg
	rows := make([]Row, len(cfg.Paths))
	for i, p := range cfg.Paths {
		rows[i] = Row{Workload: w, Path: p, Threads: cfg.ProxyThreads}
		if p == PathDirect {
			rows[i].Threads = cfg.DirectThreads
		}
		rows[i].Err = targets[p].err
	}
	for round := range cfg.Runs {
		if cfg.Runs > 1 {
			fmt.Fprintf(cfg.Progress, "galera: %s: round %d of %d\n", w, round+1, cfg.Runs)
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
				fmt.Fprintf(cfg.Progress, "galera: %s %s: %v\n", w, p, err)
				continue
			}
			row.Runs = append(row.Runs, res)
			row.runConns = append(row.runConns, conns)
		}
	}
	for i := range rows {
		rows[i].pickMedian()
	}
	return rows, nil
}

// pickMedian sets Result and NodeConnections from the run of median tps
// (the lower middle of an even count): one real run's figures, not a mix
// of several.
func (r *Row) pickMedian() {
	if len(r.Runs) == 0 {
		return
	}
	idx := make([]int, len(r.Runs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(r.Runs[a].TPS, r.Runs[b].TPS) })
	m := idx[(len(idx)-1)/2]
	r.Result, r.NodeConnections = r.Runs[m], r.runConns[m]
}

type bench struct {
	cfg      BenchConfig
	tb       *hosts.Testbed
	cl       *Cluster
	sysbench string
}

// target is where a path's client connects, inside the app namespace.
type target struct {
	host string
	port int
	err  error // the path could not be started
}

func (b *bench) sysbenchFor(test string, t target, threads int) Sysbench {
	user, pw, db := b.cl.Account()
	return Sysbench{Test: test, Host: t.host, Port: t.port, User: user, Password: pw, DB: db,
		Tables: b.cfg.Tables, TableSize: b.cfg.TableSize, Threads: threads, Time: b.cfg.Time,
		IgnoreErrors: b.cfg.IgnoreErrors}
}

// prepare creates and loads sysbench's tables once, through the first
// node; Galera replicates them to the others.
func (b *bench) prepare(ctx context.Context) error {
	n := b.cl.Nodes()[0]
	s := b.sysbenchFor(ReadWrite, target{host: n.Addr, port: n.Port}, min(b.cfg.Tables, 4))
	fmt.Fprintf(b.cfg.Progress, "galera: preparing %d tables of %d rows through %s\n", b.cfg.Tables, b.cfg.TableSize, n.Name)
	start := time.Now()
	if _, err := b.tb.Run(ctx, appHost, append([]string{b.sysbench}, s.Args("prepare")...)...); err != nil {
		return fmt.Errorf("galera: sysbench prepare: %w", err)
	}
	fmt.Fprintf(b.cfg.Progress, "galera: prepared in %.1fs\n", time.Since(start).Seconds())
	return nil
}

// startPaths starts HAProxy and one hoprelay per engine in the app
// namespace, each in front of every node, and waits until a client gets
// through each; a path that does not come up is recorded, not fatal.
// Their command lines and HAProxy's configuration are proxyconf's, as the
// driver's paths have them.
func (b *bench) startPaths(ctx context.Context, haproxy, hoprelay string) (map[string]target, error) {
	nodes := b.cl.Nodes()
	upstreams := make([]sockets.Addr, len(nodes))
	for i, n := range nodes {
		a, err := sockets.Parse("tcp:" + n.Endpoint())
		if err != nil {
			return nil, err
		}
		a.Opts.NoDelay = sockets.On
		upstreams[i] = a
	}
	targets := map[string]target{}
	for i, p := range b.cfg.Paths {
		if p == PathDirect {
			targets[p] = target{host: nodes[0].Addr, port: nodes[0].Port}
			continue
		}
		t := target{host: "127.0.0.1", port: relayPort + i}
		if p == PathHAProxy {
			t.port = haproxyPort
		}
		argv, err := b.pathArgv(ctx, p, t, haproxy, hoprelay, upstreams)
		if err != nil {
			return nil, err
		}
		t.err = b.startPath(ctx, p, t, argv)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("galera: %w", context.Cause(ctx))
		}
		targets[p] = t
	}
	return targets, nil
}

// pathArgv is the command line of path p's proxy listening at t: HAProxy
// with its configuration written into the app host's directory, or
// hoprelay with p's engine.
func (b *bench) pathArgv(ctx context.Context, p string, t target, haproxy, hoprelay string, upstreams []sockets.Addr) ([]string, error) {
	if p != PathHAProxy {
		return relayArgs(hoprelay, p, t.port, upstreams), nil
	}
	route := proxyconf.HAProxyRoute{Name: "galera", MySQL: true, CheckUser: "haproxy", Connect: upstreams,
		Listen: sockets.Addr{Network: "tcp", Host: t.host, Port: t.port}}
	dir, err := b.tb.Dir(ctx, appHost)
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "haproxy.cfg")
	if err := proxyconf.WriteHAProxy(conf, []proxyconf.HAProxyRoute{route}); err != nil {
		return nil, fmt.Errorf("galera: %w", err)
	}
	return proxyconf.HAProxyArgs(haproxy, conf), nil
}

// relayArgs is hoprelay's command line for engine: listening on port on
// every address of the app namespace, connecting round-robin to the nodes.
func relayArgs(hoprelay, engine string, port int, nodes []sockets.Addr) []string {
	listen := sockets.Addr{Network: "tcp4", Role: sockets.RoleListen, Port: port, Opts: sockets.Options{ReuseAddr: true}}
	return proxyconf.HopRelay{Engine: engine}.Args(hoprelay, listen, nodes...)
}

// startPath starts path p's proxy in the app namespace and waits until a
// login gets through it to a node; it returns why the path did not come
// up, its process stopped, or nil.
func (b *bench) startPath(ctx context.Context, p string, t target, argv []string) error {
	proc, err := b.tb.Start(ctx, appHost, hosts.Command{Name: p, Argv: argv})
	if err == nil {
		err = b.cl.WaitLogin(ctx, appHost, t.host, t.port, proc)
	}
	if err != nil {
		if proc != nil {
			proc.Stop()
		}
		if ctx.Err() != nil {
			return err // the caller returns the cancellation's cause
		}
		err = fmt.Errorf("did not start: %w", err)
		fmt.Fprintf(b.cfg.Progress, "galera: %s %v\n", p, err)
		return err
	}
	fmt.Fprintf(b.cfg.Progress, "galera: %s listening on %s:%d in front of %d nodes\n", p, t.host, t.port, len(b.cl.Nodes()))
	return nil
}

// run runs one sysbench and reads its report, echoing its per-second lines
// to Progress under the run's name.
func (b *bench) run(ctx context.Context, test, path string, t target, threads int) (Result, []int64, error) {
	name := fmt.Sprintf("%s through %s (%s:%d), %d threads", test, path, t.host, t.port, threads)
	fmt.Fprintf(b.cfg.Progress, "galera: %s, %v\n", name, b.cfg.Time)
	before := b.connections(ctx)
	var out bytes.Buffer
	lw := &lineWriter{w: b.cfg.Progress, prefix: "  " + test + " " + path + " "}
	s := b.sysbenchFor(test, t, threads)
	proc, err := b.tb.Start(ctx, appHost, hosts.Command{Name: "sysbench " + test,
		Argv: append([]string{b.sysbench}, s.Args("run")...), Stdout: io.MultiWriter(&out, lw)})
	if err != nil {
		return Result{}, nil, err
	}
	select {
	case <-proc.Done():
	case <-ctx.Done():
		proc.Stop()
		return Result{}, nil, context.Cause(ctx)
	}
	werr := proc.Wait()
	res, err := ParseSysbench(out.Bytes())
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
func (b *bench) connections(ctx context.Context) []int64 {
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

// lineWriter writes each whole line it is given to w after prefix.
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, p...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		line := l.buf[:i+1]
		if len(bytes.TrimSpace(line)) > 0 && line[0] == '[' {
			fmt.Fprintf(l.w, "%s%s", l.prefix, line)
		}
		l.buf = l.buf[i+1:]
	}
	return len(p), nil
}
