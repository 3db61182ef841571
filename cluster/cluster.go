package cluster

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/locate"
)

// Port is the client port of every node: each node has a namespace, and
// so an address, of its own, so all of them use Galera's standard ports
// (3306 client, 4567 group, 4568 IST, 4444 SST).
const Port = 3306

// DefaultProvider is where Debian's galera-4 installs the wsrep provider.
const DefaultProvider = "/usr/lib/galera/libgalera_smm.so"

// Config tunes Start. The zero value is valid except for Nodes.
type Config struct {
	// Nodes names the testbed's netns hosts, one node each; the first is
	// bootstrapped. At least one.
	Nodes []string
	// User and Password are the account clients log in with, granted
	// everything; "" for sbtest/sbtest (sysbench's defaults). DB is
	// created; "" for sbtest.
	User, Password, DB string
	// CheckUser is a password-less account created for HAProxy's option
	// mysql-check, which logs in without one; "" for none.
	CheckUser string
	// SST is wsrep_sst_method; "" for rsync.
	SST string
	// Provider is the wsrep provider library; "" for DefaultProvider.
	Provider string
	// BufferPool is each node's innodb_buffer_pool_size; "" for 64M (three
	// nodes share one machine).
	BufferPool string
	// MaxConnections is each node's max_connections; 0 for 1000, room for
	// 450 client threads through a proxy that sends them all to one node
	// once the others are down.
	MaxConnections int
	// SyncTimeout bounds each node's wait for Synced; 0 for 3 minutes (a
	// state transfer on a loaded two-core machine).
	SyncTimeout time.Duration
	// Steps is told each step (a node bootstrapping, joining, synced,
	// stopping) as it is taken, on the goroutine of the call that takes
	// it; nil for none.
	Steps func(Step)
}

func (c *Config) defaults() {
	if c.User == "" {
		c.User, c.Password = "sbtest", "sbtest"
	}
	if c.DB == "" {
		c.DB = "sbtest"
	}
	if c.SST == "" {
		c.SST = "rsync"
	}
	if c.Provider == "" {
		c.Provider = DefaultProvider
	}
	if c.BufferPool == "" {
		c.BufferPool = "64M"
	}
	if c.MaxConnections == 0 {
		c.MaxConnections = 1000
	}
	if c.SyncTimeout == 0 {
		c.SyncTimeout = 3 * time.Minute
	}
}

// Cluster is a running Galera cluster.
type Cluster struct {
	cfg   Config
	tb    *hosts.Testbed
	nodes []*Node
	prog  map[string]string
}

// Node is one member of a Cluster.
type Node struct {
	Name string // the testbed host it runs on
	Addr string // its address, 10.77.0.k
	Port int

	dir  string
	proc *hosts.Process
}

// Endpoint is host:port for a client.
func (n *Node) Endpoint() string { return net.JoinHostPort(n.Addr, strconv.Itoa(n.Port)) }

func (n *Node) socket() string  { return filepath.Join(n.dir, "mysqld.sock") }
func (n *Node) datadir() string { return filepath.Join(n.dir, "data") }
func (n *Node) errLog() string  { return filepath.Join(n.dir, "error.log") }

// Status is what a node says of its place in the cluster.
type Status struct {
	ClusterSize   int    // wsrep_cluster_size
	State         string // wsrep_local_state_comment: Joining, Donor/Desynced, Synced…
	Ready         bool   // wsrep_ready
	ClusterStatus string // wsrep_cluster_status: Primary or not
}

// Synced reports whether the node is synced in a primary component of
// size members.
func (s Status) Synced(size int) bool {
	return s.State == "Synced" && s.Ready && s.ClusterSize == size && s.ClusterStatus == "Primary"
}

func (s Status) String() string {
	return fmt.Sprintf("%s, cluster size %d, %s, ready %t", s.State, s.ClusterSize, s.ClusterStatus, s.Ready)
}

var programs = []string{"mariadbd", "mariadb-install-db", "mariadb"}

// Start bootstraps a cluster on tb's hosts cfg.Nodes and returns once every
// node is Synced in a cluster of len(cfg.Nodes). Each node's files live in
// tb.Dir, removed by tb.Close; its process is stopped by Cluster.Close or,
// failing that, by tb.Close.
//
// The nodes run as the mysql user (through setpriv when it is installed,
// so that they still die with this process), their files owned by it: the rsync
// state transfer starts an rsync daemon on the joiner, and rsync run by
// root drops to uid nobody (rsyncd.conf(5), "uid"), which cannot enter a
// datadir that mariadbd keeps 0700 — the transfer then fails with rsync's
// code 3. mariadbd run as mysql starts the daemon as mysql, the owner.
func Start(ctx context.Context, tb *hosts.Testbed, cfg Config) (*Cluster, error) {
	cfg.defaults()
	if len(cfg.Nodes) == 0 {
		return nil, errors.New("galera: no nodes")
	}
	c := &Cluster{cfg: cfg, tb: tb, prog: map[string]string{}}
	for _, p := range programs {
		path, err := locate.Find(p)
		if err != nil {
			return nil, fmt.Errorf("galera: %w (install mariadb-server, or run make deps)", err)
		}
		c.prog[p] = path
	}
	// util-linux's setpriv; without it the nodes switch to mysql
	// themselves.
	c.prog["setpriv"], _ = locate.Find("setpriv")
	if _, err := os.Stat(cfg.Provider); err != nil {
		return nil, fmt.Errorf("galera: wsrep provider: %w (install galera-4, or run make deps)", err)
	}
	if err := c.makeDirs(ctx); err != nil {
		return nil, err
	}
	if err := c.bootstrap(ctx); err != nil {
		return c, err
	}
	for i := 1; i < len(c.nodes); i++ {
		if err := c.join(ctx, i); err != nil {
			return c, err
		}
	}
	return c, nil
}

// Nodes lists the members in the order of Config.Nodes.
func (c *Cluster) Nodes() []*Node { return c.nodes }

// Account is the client account: user, password, database.
func (c *Cluster) Account() (user, password, db string) { return c.cfg.User, c.cfg.Password, c.cfg.DB }

func (c *Cluster) makeDirs(ctx context.Context) error {
	mysql, err := user.Lookup("mysql")
	if err != nil {
		return fmt.Errorf("galera: the nodes run as mysql: %w (install mariadb-server)", err)
	}
	uid, _ := strconv.Atoi(mysql.Uid)
	gid, _ := strconv.Atoi(mysql.Gid)
	for _, name := range c.cfg.Nodes {
		addr, err := c.tb.Address(name)
		if err != nil {
			return fmt.Errorf("galera: %w", err)
		}
		if _, err := c.tb.Namespace(name); err != nil {
			return fmt.Errorf("galera: node %s: %w", name, err)
		}
		base, err := c.tb.Dir(ctx, name)
		if err != nil {
			return fmt.Errorf("galera: %w", err)
		}
		// The testbed's directory is 0700; mysql must pass through it
		// (search, not list) to reach its own.
		if err := os.Chmod(base, 0o711); err != nil {
			return fmt.Errorf("galera: %w", err)
		}
		n := &Node{Name: name, Addr: addr, Port: Port, dir: filepath.Join(base, "galera-"+name)}
		for _, d := range []string{n.dir, n.datadir()} {
			if err := os.Mkdir(d, 0o750); err != nil {
				return fmt.Errorf("galera: node %s: %w", name, err)
			}
			if err := os.Chown(d, uid, gid); err != nil {
				return fmt.Errorf("galera: node %s: %w", name, err)
			}
		}
		c.nodes = append(c.nodes, n)
	}
	return nil
}

func (c *Cluster) argv(n *Node, bootstrap bool) []string {
	var peers []string
	for _, m := range c.nodes {
		peers = append(peers, m.Addr)
	}
	var argv []string
	if sp := c.prog["setpriv"]; sp != "" {
		// mysqld's own --user switch changes its credentials, which
		// clears the parent-death signal the testbed asks for (prctl(2)
		// PR_SET_PDEATHSIG), so a node would outlive a killed run;
		// setpriv sets it again after its own switch to mysql.
		argv = []string{sp, "--reuid=mysql", "--regid=mysql", "--init-groups", "--pdeathsig=TERM"}
	}
	argv = append(argv, c.prog["mariadbd"], "--no-defaults",
		"--datadir="+n.datadir(), "--socket="+n.socket(), "--port="+strconv.Itoa(n.Port),
		"--bind-address="+n.Addr, "--pid-file="+filepath.Join(n.dir, "mysqld.pid"),
		"--log-error="+n.errLog(), "--skip-name-resolve", "--skip-log-bin", "--performance-schema=OFF",
		"--innodb-buffer-pool-size="+c.cfg.BufferPool, "--innodb-flush-log-at-trx-commit=0",
		"--max-connections="+strconv.Itoa(c.cfg.MaxConnections),
		// Galera's requirements (row events, interleaved auto-increment
		// locks so that concurrent inserts do not wait on a table lock).
		"--binlog-format=ROW", "--innodb-autoinc-lock-mode=2",
		"--wsrep-on=ON", "--wsrep-provider="+c.cfg.Provider, "--wsrep-cluster-name=hoplat",
		"--wsrep-cluster-address=gcomm://"+strings.Join(peers, ","),
		"--wsrep-node-address="+n.Addr, "--wsrep-node-name="+n.Name,
		"--wsrep-sst-method="+c.cfg.SST,
		// The write-set cache is a file of this size in each datadir.
		"--wsrep-provider-options=gcache.size=64M")
	if c.prog["setpriv"] == "" {
		argv = append(argv, "--user=mysql")
	}
	if bootstrap {
		argv = append(argv, "--wsrep-new-cluster")
	}
	return argv
}

func (c *Cluster) startNode(ctx context.Context, n *Node, bootstrap bool) error {
	p, err := c.tb.Start(ctx, n.Name, hosts.Command{Name: "mariadbd " + n.Name, Argv: c.argv(n, bootstrap)})
	if err != nil {
		return fmt.Errorf("galera: %w", err)
	}
	n.proc = p
	return nil
}

func (c *Cluster) bootstrap(ctx context.Context) error {
	n := c.nodes[0]
	out, err := exec.CommandContext(ctx, c.prog["mariadb-install-db"], "--no-defaults", "--datadir="+n.datadir(),
		"--user=mysql", "--auth-root-authentication-method=normal", "--skip-test-db", "--skip-name-resolve").CombinedOutput()
	if err != nil {
		return fmt.Errorf("galera: node %s: mariadb-install-db: %w: %s", n.Name, err, tail(string(out), 5))
	}
	if err := c.startNode(ctx, n, true); err != nil {
		return err
	}
	c.step(Step{Kind: Bootstrapping, Node: n.Name, Endpoint: n.Endpoint()})
	// Root logs in over the node's socket alone (root@localhost); the
	// accounts made here reach the other nodes with their state transfer.
	grants := fmt.Sprintf("CREATE DATABASE IF NOT EXISTS %s; CREATE USER IF NOT EXISTS '%s'@'%%' IDENTIFIED BY '%s'; GRANT ALL ON *.* TO '%s'@'%%';",
		c.cfg.DB, c.cfg.User, c.cfg.Password, c.cfg.User)
	if c.cfg.CheckUser != "" {
		grants += fmt.Sprintf(" CREATE USER IF NOT EXISTS '%s'@'%%';", c.cfg.CheckUser)
	}
	root := []string{c.prog["mariadb"], "--no-defaults", "-uroot", "--socket=" + n.socket(), "-e", grants}
	if err := c.poll(ctx, n, func() (bool, error) {
		_, err := c.tb.Run(ctx, n.Name, root...)
		return err == nil, nil
	}); err != nil {
		return fmt.Errorf("galera: node %s: accounts: %w", n.Name, err)
	}
	return c.WaitSynced(ctx, 0, 1)
}

func (c *Cluster) join(ctx context.Context, i int) error {
	n := c.nodes[i]
	if err := c.startNode(ctx, n, false); err != nil {
		return err
	}
	c.step(Step{Kind: Joining, Node: n.Name, Endpoint: n.Endpoint(), SST: c.cfg.SST})
	return c.WaitSynced(ctx, i, i+1)
}

// pollEvery is how often a wait asks again; a state transfer takes
// seconds, a bootstrap about one.
const pollEvery = 200 * time.Millisecond

// poll calls ready until it reports true, n's process exits (the error
// then carries the end of its error log), ctx ends, or SyncTimeout passes.
func (c *Cluster) poll(ctx context.Context, n *Node, ready func() (bool, error)) error {
	deadline := time.NewTimer(c.cfg.SyncTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		ok, err := ready()
		if err != nil {
			return err
		}
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w", context.Cause(ctx))
		case <-n.proc.Done():
			return fmt.Errorf("mariadbd exited: %s", c.logTail(n))
		case <-deadline.C:
			return fmt.Errorf("not ready after %v: %s", c.cfg.SyncTimeout, c.logTail(n))
		case <-tick.C:
		}
	}
}

// WaitSynced waits until node i reports Synced in a primary component of
// size members.
func (c *Cluster) WaitSynced(ctx context.Context, i, size int) error {
	n := c.nodes[i]
	start := time.Now()
	var last Status
	var lastErr error
	err := c.poll(ctx, n, func() (bool, error) {
		last, lastErr = c.Status(ctx, i)
		return lastErr == nil && last.Synced(size), nil
	})
	if err != nil {
		if lastErr != nil {
			return fmt.Errorf("galera: node %s: waiting for Synced in %d: %w (last status query: %v)", n.Name, size, err, lastErr)
		}
		return fmt.Errorf("galera: node %s: waiting for Synced in %d: %w (last status: %s)", n.Name, size, err, last)
	}
	c.step(Step{Kind: Reached, Node: n.Name, Status: last, After: time.Since(start)})
	return nil
}

// Query runs sql on node i over the client protocol (TCP to the node's
// address, from its own namespace, as the client account) and returns the
// rows, tab-separated fields as the mariadb client prints them in batch
// mode.
func (c *Cluster) Query(ctx context.Context, i int, sql string) ([][]string, error) {
	n := c.nodes[i]
	out, err := c.tb.Run(ctx, n.Name, c.prog["mariadb"], "--no-defaults", "-h", n.Addr, "-P", strconv.Itoa(n.Port),
		"-u", c.cfg.User, "--password="+c.cfg.Password, "-D", c.cfg.DB, "--connect-timeout=5", "-N", "-B", "-e", sql)
	if err != nil {
		return nil, err
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows, nil
}

// GlobalStatus reads the named status variables of node i.
func (c *Cluster) GlobalStatus(ctx context.Context, i int, names ...string) (map[string]string, error) {
	q := make([]string, len(names))
	for j, n := range names {
		q[j] = "'" + n + "'"
	}
	rows, err := c.Query(ctx, i, "SHOW GLOBAL STATUS WHERE Variable_name IN ("+strings.Join(q, ",")+")")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, r := range rows {
		if len(r) == 2 {
			m[strings.ToLower(r[0])] = r[1]
		}
	}
	return m, nil
}

// Status reads node i's wsrep status.
func (c *Cluster) Status(ctx context.Context, i int) (Status, error) {
	m, err := c.GlobalStatus(ctx, i, "wsrep_cluster_size", "wsrep_local_state_comment", "wsrep_ready", "wsrep_cluster_status")
	if err != nil {
		return Status{}, err
	}
	size, _ := strconv.Atoi(m["wsrep_cluster_size"])
	return Status{ClusterSize: size, State: m["wsrep_local_state_comment"], Ready: m["wsrep_ready"] == "ON",
		ClusterStatus: m["wsrep_cluster_status"]}, nil
}

// loginTimeout bounds WaitLogin: a proxy's listener, and one login
// through it to a node.
const loginTimeout = 30 * time.Second

// WaitLogin waits until the client account logs in at host:port from the
// testbed host from (a proxy there listens and reaches a node), proc (the
// proxy, or nil) exits, or loginTimeout passes.
func (c *Cluster) WaitLogin(ctx context.Context, from, host string, port int, proc *hosts.Process) error {
	deadline := time.NewTimer(loginTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	var exited <-chan struct{}
	if proc != nil {
		exited = proc.Done()
	}
	for {
		_, err := c.tb.Run(ctx, from, c.prog["mariadb"], "--no-defaults", "-h", host, "-P", strconv.Itoa(port),
			"-u", c.cfg.User, "--password="+c.cfg.Password, "--connect-timeout=5", "-N", "-B", "-e", "SELECT 1")
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return context.Cause(ctx)
		case <-exited:
			return fmt.Errorf("exited: %s", tail(proc.Stderr(), 3))
		case <-deadline.C:
			return fmt.Errorf("no login through %s:%d after %v: %w", host, port, loginTimeout, err)
		case <-tick.C:
		}
	}
}

// StopNode shuts node i down (SIGTERM, mariadbd's clean shutdown: it leaves
// the group, and the others go on as a primary component of one fewer).
func (c *Cluster) StopNode(i int) error {
	n := c.nodes[i]
	if n.proc == nil {
		return nil
	}
	c.step(Step{Kind: Stopping, Node: n.Name})
	if err := n.proc.Stop(); err != nil {
		return fmt.Errorf("galera: node %s: %w", n.Name, err)
	}
	return nil
}

// Close stops every node that runs, all at once (each leaves the group on
// its own).
func (c *Cluster) Close() error {
	errs := make([]error, len(c.nodes))
	var wg sync.WaitGroup
	for i := range c.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.StopNode(i)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (c *Cluster) logTail(n *Node) string {
	b, err := os.ReadFile(n.errLog())
	if err != nil {
		return "no error log: " + err.Error()
	}
	// The state transfer script's own ERROR lines say more than the last
	// lines of a node that aborted.
	var errLines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "ERROR") {
			errLines = append(errLines, l)
		}
	}
	if len(errLines) > 0 {
		return tail(strings.Join(errLines, "\n"), 4)
	}
	return tail(string(b), 4)
}

// tail is the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
