package cluster

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/hoplat/hoplat/roles"
)

// Paths the bench runs: the one server (the first node, directly), HAProxy
// in front of the three, and each hoprelay engine in front of the three.
const (
	PathDirect  = "direct"
	PathHAProxy = "haproxy"
)

// DefaultPaths is every path: direct, haproxy and each relay engine.
func DefaultPaths() []string {
	return append([]string{PathDirect, PathHAProxy}, roles.Engines...)
}

// Published are the Galera runs' figures (docs/galera.md) (transactions per second, one
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

// BenchConfig tunes the bench (driver.Galera). The zero value runs §4 as
// published, sized for this machine where the notes give no size: 10
// tables of 10000 rows, 10 s per run.
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
}

// WithDefaults is c with every zero field at its documented default.
func (c BenchConfig) WithDefaults() BenchConfig {
	c.defaults()
	return c
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
}

// Check reports a config the bench (driver.Galera) would refuse.
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

// Report is the bench's table (driver.Galera runs it) and what it ran on.
type Report struct {
	Config  BenchConfig
	Version string // the nodes' MariaDB
	Wsrep   string // the provider's version
	Nodes   []string
	Rows    []Row
}

// AddRun records one round's result on the row with each node's
// connections during it.
func (r *Row) AddRun(res Result, nodeConnections []int64) {
	r.Runs = append(r.Runs, res)
	r.runConns = append(r.runConns, nodeConnections)
}

// PickMedian sets Result and NodeConnections from the run of median tps
// (the lower middle of an even count): one real run's figures, not a mix
// of several.
func (r *Row) PickMedian() {
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
