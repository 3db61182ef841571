package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hoplat/hoplat/hosts"
	"github.com/hoplat/hoplat/internal/peer"
)

// The tests' hosts: app holds the clients and the relay, the nodes are
// galera1…; the relay listens on a fixed port of the app namespace, which
// is new and empty.
const (
	appHost   = "app"
	relayPort = 4001
)

func nodeHost(i int) string { return "galera" + strconv.Itoa(i+1) }

// requireCluster skips (fails, under HOPLAT_REQUIRE_INTEGRATION) unless
// this process may make namespaces and the cluster's programs are here.
func requireCluster(t *testing.T) {
	t.Helper()
	peer.Root(t, "galera: network namespaces need root")
	for _, p := range []string{"ip", "mariadbd", "mariadb-install-db", "mariadb", "sysbench", "rsync"} {
		peer.Require(t, p)
	}
	if _, err := os.Stat(DefaultProvider); err != nil {
		peer.Unavailable(t, "galera: no wsrep provider ("+err.Error()+"): install galera-4 with `make deps`")
	}
}

// upCluster makes app and three node namespaces and a Synced cluster,
// removed when the test ends.
func upCluster(t *testing.T, ctx context.Context) (*hosts.Testbed, *Cluster) {
	t.Helper()
	hs := []hosts.Host{{Name: appHost, Kind: hosts.NetNS, Namespace: appHost}}
	var nodes []string
	for i := range 3 {
		hs = append(hs, hosts.Host{Name: nodeHost(i), Kind: hosts.NetNS, Namespace: nodeHost(i)})
		nodes = append(nodes, nodeHost(i))
	}
	tb, err := hosts.Up(ctx, hs, hosts.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := tb.Close(); err != nil {
			t.Error(err)
		}
	})
	cl, err := Start(ctx, tb, Config{Nodes: nodes, Steps: func(s Step) { t.Logf("%+v", s) }})
	if cl != nil {
		t.Cleanup(func() { cl.Close() })
	}
	if err != nil {
		t.Fatal(err)
	}
	return tb, cl
}

// firstLine closes seen at the first progress line it is given.
type firstLine struct {
	mark string // what marks the first line; "" for sysbench's "\n[ "
	once sync.Once
	seen chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
}

func (f *firstLine) Write(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.buf.Write(p)
	mark := f.mark
	if mark == "" {
		mark = "\n[ "
	}
	if bytes.Contains(f.buf.Bytes(), []byte(mark)) {
		f.once.Do(func() { close(f.seen) })
	}
	return len(p), nil
}

func (f *firstLine) bytes() []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return bytes.Clone(f.buf.Bytes())
}

type relayStats struct {
	Upstreams []struct {
		Connections int  `json:"connections"`
		Failed      int  `json:"failed"`
		Down        bool `json:"down"`
	} `json:"upstreams"`
}

// TestClusterThroughRelay: three nodes reach Synced; an oltp_read_write
// run through hoprelay with the three as upstreams spreads its connections
// over all of them and leaves the nodes with the same rows; then, with one
// node stopped mid-run, the run goes on: the connections it lost reconnect
// through the relay to the other two, the errors are counted, and nothing
// hangs.
func TestClusterThroughRelay(t *testing.T) {
	requireCluster(t)
	hoprelay := peer.Hoplat(t, "hoprelay")
	sysbench := peer.Require(t, "sysbench")
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tb, cl := upCluster(t, ctx)
	for i := range cl.Nodes() {
		st, err := cl.Status(ctx, i)
		if err != nil || !st.Synced(3) {
			t.Fatalf("node %d: %v, %v", i, st, err)
		}
	}
	user, pw, db := cl.Account()
	n0 := cl.Nodes()[0]
	sb := Sysbench{Test: ReadWrite, User: user, Password: pw, DB: db, Tables: 2, TableSize: 1000, Threads: 2}
	sb.Host, sb.Port = n0.Addr, n0.Port
	if _, err := tb.Run(ctx, appHost, append([]string{sysbench}, sb.Args("prepare")...)...); err != nil {
		t.Fatal(err)
	}

	dir, err := tb.Dir(ctx, appHost)
	if err != nil {
		t.Fatal(err)
	}
	stats := filepath.Join(dir, "relay-stats.json")
	argv := []string{hoprelay, "--engine", "epoll", "--retry", "1s", "--stats", stats, "TCP4-LISTEN:" + strconv.Itoa(relayPort) + ",reuseaddr"}
	for _, n := range cl.Nodes() {
		argv = append(argv, "TCP4:"+n.Endpoint()+",nodelay")
	}
	relayProc, err := tb.Start(ctx, appHost, hosts.Command{Name: "hoprelay", Argv: argv})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.WaitLogin(ctx, appHost, "127.0.0.1", relayPort, relayProc); err != nil {
		t.Fatal(err)
	}
	sb.Host, sb.Port = "127.0.0.1", relayPort

	t.Run("oltp-rw", func(t *testing.T) {
		before := connections(t, ctx, cl)
		sb.Threads, sb.Time = 12, 4*time.Second
		out, err := tb.Run(ctx, appHost, append([]string{sysbench}, sb.Args("run")...)...)
		if err != nil {
			t.Fatal(err)
		}
		r, err := ParseSysbench(out)
		if err != nil {
			t.Fatal(err)
		}
		if r.Transactions == 0 || r.Write == 0 || len(r.Intervals) == 0 {
			t.Fatalf("no transactions through the relay:\n%s", out)
		}
		after := connections(t, ctx, cl)
		for i := range after {
			// Round-robin: 12 threads, 4 to each node (and this test's
			// status queries).
			if d := after[i] - before[i]; d < 4 {
				t.Errorf("node %d accepted %d connections during the run, want at least 4 of 12", i, d)
			}
		}
		t.Logf("%.1f tps, %d ignored errors, connections per node %v", r.TPS, r.IgnoredErrors, diff(before, after))
		// The nodes hold the same rows: read each after it has applied
		// every write set it has received (wsrep_sync_wait).
		var sums []string
		for i := range cl.Nodes() {
			rows, err := cl.Query(ctx, i, "SET SESSION wsrep_sync_wait=1; SELECT COUNT(*), SUM(k), SUM(CRC32(c)) FROM sbtest1")
			if err != nil || len(rows) != 1 {
				t.Fatalf("node %d: %v %v", i, rows, err)
			}
			sums = append(sums, strings.Join(rows[0], " "))
		}
		if sums[0] != sums[1] || sums[0] != sums[2] {
			t.Errorf("nodes differ after the run: %q", sums)
		}
	})

	// The failover run's client is pingpong: sysbench 1.0.20 linked with
	// MariaDB's client library crashes (SIGSEGV) when it reconnects, as it
	// reuses a closed MYSQL handle (akopytov/sysbench#527). pingpong's
	// oltp-rw sends the same transaction and replaces a lost connection as
	// sysbench means to.
	t.Run("failover", func(t *testing.T) {
		pingpong := peer.Hoplat(t, "pingpong")
		const threads, secs = 12, 8
		argv := []string{pingpong, "--target", "tcp:127.0.0.1:" + strconv.Itoa(relayPort), "--proto", "mysql",
			"--user", user, "--password", pw, "--db", db, "--command", "oltp-rw", "--tables", "2", "--table-size", "1000",
			"--range-selects=false", "--threads", strconv.Itoa(threads), "--time", strconv.Itoa(secs) + "s",
			"--report-interval", "1s", "--format", "json"}
		// Started and owned here, not by the testbed: it exits 1 for the
		// connections it lost, which is what this test wants.
		full, err := tb.Argv(appHost, argv)
		if err != nil {
			t.Fatal(err)
		}
		var stdout bytes.Buffer
		progress := &firstLine{seen: make(chan struct{}), mark: "thds:"}
		cmd := exec.CommandContext(ctx, full[0], full[1:]...)
		cmd.Stdout, cmd.Stderr = &stdout, progress
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var werr error
		exited := false
		defer func() {
			if !exited {
				cmd.Process.Kill()
				<-done
			}
		}()
		select {
		case <-progress.seen:
		case werr = <-done:
			exited = true
			t.Fatalf("pingpong ended before its first progress line: %v\n%s", werr, progress.bytes())
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
		stopped := time.Now()
		if err := cl.StopNode(2); err != nil {
			t.Fatal(err)
		}
		t.Logf("node 3 stopped in %v", time.Since(stopped).Round(time.Millisecond))
		// Nothing hangs: the run ends on time, give or take the reconnects.
		hang := time.NewTimer(secs*time.Second + 30*time.Second)
		defer hang.Stop()
		select {
		case werr = <-done:
			exited = true
		case <-hang.C:
			t.Fatalf("pingpong still running %v after node 3 stopped:\n%s", time.Since(stopped), progress.bytes())
		}
		// A lost connection is an error, not an ignored one: pingpong
		// exits 1 for it, and its report says how many.
		var rep struct {
			Results []struct {
				TPS struct {
					Mean float64 `json:"mean"`
				} `json:"tps"`
				Errors     int64 `json:"errors"`
				Reconnects int64 `json:"reconnects"`
			} `json:"results"`
		}
		if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil || len(rep.Results) != 1 {
			t.Fatalf("pingpong report: %v (exit: %v)\n%s\n%s", err, werr, stdout.Bytes(), progress.bytes())
		}
		r := rep.Results[0]
		t.Logf("%.1f tps, %d errors, %d reconnects (exit: %v)", r.TPS.Mean, r.Errors, r.Reconnects, werr)
		if r.Errors == 0 || r.Reconnects == 0 {
			t.Errorf("%d errors, %d reconnects: want the stopped node's connections lost, counted and replaced\n%s", r.Errors, r.Reconnects, progress.bytes())
		}
		if r.TPS.Mean == 0 {
			t.Errorf("no transactions\n%s", progress.bytes())
		}
		for i := range 2 {
			st, err := cl.Status(ctx, i)
			if err != nil || !st.Synced(2) {
				t.Errorf("node %d: %v, %v; want Synced in a cluster of 2", i+1, st, err)
			}
		}
		if err := relayProc.Stop(); err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(stats)
		if err != nil {
			t.Fatal(err)
		}
		var s relayStats
		if err := json.Unmarshal(raw, &s); err != nil || len(s.Upstreams) != 3 {
			t.Fatalf("relay stats: %v\n%s", err, raw)
		}
		// The reconnects went through the relay: the stopped node refused
		// at least one (and was skipped), the others took them.
		if u := s.Upstreams[2]; u.Failed == 0 {
			t.Errorf("the relay never tried the stopped node after it stopped: %s", raw)
		}
		t.Logf("relay upstreams: %s", raw)
	})
}

func connections(t *testing.T, ctx context.Context, cl *Cluster) []int64 {
	t.Helper()
	var out []int64
	for i := range cl.Nodes() {
		m, err := cl.GlobalStatus(ctx, i, "Connections")
		if err != nil {
			t.Fatal(err)
		}
		n, err := strconv.ParseInt(m["connections"], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}

func diff(a, b []int64) []int64 {
	d := make([]int64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return d
}

// TestBenchKilledLeavesNothing: hopbench galera, sent SIGTERM while
// sysbench runs through the relay, exits 143 and leaves no namespace,
// process or temp dir behind. Killed with SIGKILL instead, it can remove
// nothing, but its processes die with it (the nodes too, which change
// their credentials) and the next run removes its namespaces and files.
func TestBenchKilledLeavesNothing(t *testing.T) {
	t.Run("SIGTERM", func(t *testing.T) { killBench(t, syscall.SIGTERM) })
	t.Run("SIGKILL", func(t *testing.T) { killBench(t, syscall.SIGKILL) })
}

func killBench(t *testing.T, sig syscall.Signal) {
	requireCluster(t)
	peer.Require(t, "haproxy")
	hopbench := peer.Hoplat(t, "hopbench")
	hoprelay := peer.Hoplat(t, "hoprelay")
	cmd := exec.Command(hopbench, "galera", "--table-size", "200", "--tables", "2", "--time", "30s",
		"--direct-threads", "4", "--proxy-threads", "8", "--paths", "haproxy,epoll", "--workloads", "oltp_read_write")
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(hoprelay)+string(os.PathListSeparator)+os.Getenv("PATH"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var log bytes.Buffer
	running := make(chan struct{})
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(stderr)
		once := sync.Once{}
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			// The first progress line of the run through HAProxy: every
			// kind of thing the bench makes exists now.
			if strings.Contains(sc.Text(), "oltp_read_write haproxy [ ") {
				once.Do(func() { close(running) })
			}
		}
		io.Copy(io.Discard, stderr)
	}()
	deadline := time.NewTimer(3 * time.Minute)
	defer deadline.Stop()
	select {
	case <-running:
	case <-copied:
		cmd.Wait()
		t.Fatalf("hopbench galera ended before its first run:\n%s", log.String())
	case <-deadline.C:
		cmd.Process.Kill()
		<-copied
		cmd.Wait()
		t.Fatalf("no progress line after 3 minutes:\n%s", log.String())
	}
	// What it runs, found before the signal: every process in its
	// namespaces.
	nss := namespaces(t, pid)
	if len(nss) != 5 {
		t.Errorf("namespaces %v, want app, three nodes and the bridge", nss)
	}
	var inside []int
	for _, ns := range nss {
		out, _ := exec.Command("ip", "netns", "pids", ns).Output()
		for _, f := range strings.Fields(string(out)) {
			p, _ := strconv.Atoi(f)
			inside = append(inside, p)
		}
	}
	if len(inside) < 5 {
		t.Errorf("processes in its namespaces %v, want three nodes, HAProxy, the relay and sysbench", inside)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	<-copied
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	switch {
	case sig == syscall.SIGTERM && (!ok || ee.ExitCode() != 143):
		t.Errorf("exit after SIGTERM: %v, want status 143\n%s", err, log.String())
	case sig == syscall.SIGKILL && (!ok || ee.ExitCode() != -1):
		t.Errorf("exit after SIGKILL: %v", err)
	}
	if sig == syscall.SIGKILL {
		// Each process got SIGTERM from the kernel (the parent-death
		// signal); a node's clean shutdown takes a few seconds.
		deadline := time.Now().Add(30 * time.Second)
		for time.Now().Before(deadline) && len(alive(inside)) > 0 {
			// Polled: the nodes are not this process's children, so
			// there is no exit to wait on.
			time.Sleep(100 * time.Millisecond)
		}
		for _, p := range alive(inside) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			t.Errorf("process %d outlived hopbench by 30s: %s", p, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
		}
		// The next run's start removes what this one left.
		tb, err := hosts.Up(context.Background(), nil, hosts.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := tb.Close(); err != nil {
			t.Error(err)
		}
	}
	if left := namespaces(t, pid); len(left) > 0 {
		t.Errorf("namespaces left: %v", left)
	}
	for _, p := range alive(inside) {
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
		t.Errorf("process %d left running: %s", p, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '}))
	}
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), "hoplat-"+strconv.Itoa(pid)+"-*"))
	if len(dirs) > 0 {
		t.Errorf("temp dirs left: %v", dirs)
	}
	if t.Failed() {
		t.Logf("hopbench galera's stderr:\n%s", log.String())
	}
}

// alive is the processes of pids that still run (a zombie, whose
// cmdline is empty, has exited).
func alive(pids []int) []int {
	var out []int
	for _, p := range pids {
		if err := syscall.Kill(p, 0); err != nil {
			continue
		}
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p)); len(cmdline) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// namespaces lists the network namespaces made by process pid.
func namespaces(t *testing.T, pid int) []string {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	var nss []string
	for _, line := range strings.Split(string(out), "\n") {
		name, _, _ := strings.Cut(strings.TrimSpace(line), " ")
		if strings.HasPrefix(name, "hoplat-"+strconv.Itoa(pid)+"-") {
			nss = append(nss, name)
		}
	}
	return nss
}
