package main

import (
	"bytes"
	"fmt"
	"math"
	"net/url"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
	"github.com/hoplat/hoplat/internal/mariadbtest"
	"github.com/hoplat/hoplat/present"
)

// checkSweep checks a sweep's shape: one row per thread count, each
// instance against its server in turn, every instance with figures and
// the row's mean their sum; and that its text ends with RonDB's final
// table, one line per thread count.
func checkSweep(t *testing.T, rep *hop.Report, instances, servers int, threads []int) {
	t.Helper()
	sw := rep.Sweep
	if sw == nil || sw.Instances != instances || len(sw.Servers) != servers || len(sw.Rows) != len(threads) || len(rep.Paths) != 0 {
		t.Fatalf("sweep %+v, paths %d", sw, len(rep.Paths))
	}
	for i, r := range sw.Rows {
		if r.Threads != threads[i] || len(r.Instances) != instances || r.Errors != 0 {
			t.Errorf("row %d: %+v", i, r)
			continue
		}
		sum := 0.0
		for j, in := range r.Instances {
			if in.Instance != j+1 || in.Server != j%servers || in.TPS <= 0 || in.P95Us <= 0 || in.Failed != "" {
				t.Errorf("threads %d, instance %d: %+v", r.Threads, j+1, in)
			}
			sum += in.TPS
		}
		if math.Abs(sum-r.MeanTPS) > 1e-6*sum {
			t.Errorf("threads %d: mean %v, the instances sum to %v", r.Threads, r.MeanTPS, sum)
		}
	}
	var b bytes.Buffer
	if err := present.WriteSweep(&b, sw); err != nil {
		t.Fatal(err)
	}
	_, final, ok := strings.Cut(b.String(), "Final results (sum of the instances, tps):\n")
	lines := strings.Split(strings.TrimSpace(final), "\n")
	if !ok || len(lines) != len(threads) {
		t.Fatalf("no final table of %d lines:\n%s", len(threads), b.String())
	}
	for i, l := range lines {
		if want := fmt.Sprintf("Threads: %d Mean: %.0f", threads[i], sw.Rows[i].MeanTPS); l != want {
			t.Errorf("final line %q, want %q", l, want)
		}
	}
}

// Two backends named in --backend, two client instances: here both are
// one MariaDB, reached over TCP twice.
func TestIntegrationSweepTwoBackends(t *testing.T) {
	db := mariadbtest.Shared(t)
	be := "mysql://" + url.UserPassword(db.User, db.Password).String() + "@" + db.Addr + "/" + db.DB
	cmd, tmp := hopbench(t, "--backend", be+";"+be, "--client-instances", "2", "--threads", "1,4", "--paths", "direct",
		"--transports", "tcp", "--time", "300ms", "--runs", "2", "--discard", "1", "--format", "json", "-q")
	rep := reportOf(t, cmd)
	noneLeft(t, tmp)
	checkSweep(t, rep, 2, 2, []int{1, 4})
	if strings.Contains(rep.Sweep.Servers[0].Name, db.Password) {
		t.Errorf("server name %q shows the password", rep.Sweep.Servers[0].Name)
	}
}

// Three instances against one embedded responder, and a relay path
// refused: a sweep runs the direct path.
func TestIntegrationSweepInstances(t *testing.T) {
	cmd, tmp := hopbench(t, "--client-instances", "3", "--threads", "2", "--paths", "direct", "--time", "200ms", "--runs", "1", "--discard", "0",
		"--format", "json", "-q")
	rep := reportOf(t, cmd)
	noneLeft(t, tmp)
	checkSweep(t, rep, 3, 1, []int{2})
	cmd, _ = hopbench(t, "--client-instances", "2", "--paths", "direct,epoll", "--time", "200ms", "-q")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "runs the direct path") {
		t.Errorf("a sweep through epoll: %v\n%s", err, out)
	}
}

// hosts/testdata/rondb-sweep.conf between namespaces: two servers, each in
// its own, two instances from a third; nothing left behind.
func TestIntegrationRonDBSweepConf(t *testing.T) {
	needNetns(t)
	cmd, tmp := hopbench(t, "--topology", "../../hosts/testdata/rondb-sweep.conf", "--threads", "1,8", "--time", "300ms",
		"--format", "json", "-q")
	rep := reportOf(t, cmd)
	checkSweep(t, rep, 2, 2, []int{1, 8})
	if rep.Sweep.Servers[0].Host != "db1" || rep.Sweep.Servers[1].Host != "db2" || len(rep.Hosts) != 3 {
		t.Errorf("servers %+v, hosts %+v", rep.Sweep.Servers, rep.Hosts)
	}
	noneLeft(t, tmp)
	topologyLeft(t, cmd.Process.Pid, tmp)
}
