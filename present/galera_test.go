package present

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/internal/golden"
)

// galeraReport is a table of two interleaved runs with a direct row, a
// proxy row with a published note, and a path that did not start.
func galeraReport() *cluster.Report {
	direct := cluster.Result{TPS: 500.5, QPS: 10010}
	direct.LatencyMS.P95 = 300.25
	return &cluster.Report{
		Config: cluster.BenchConfig{Tables: 10, TableSize: 1000, Time: 5 * time.Second,
			IgnoreErrors: cluster.DefaultIgnoreErrors, Runs: 2},
		Version: "10.11.19-MariaDB", Wsrep: "26.4.23", Nodes: []string{"10.77.0.2:3306", "10.77.0.3:3306", "10.77.0.4:3306"},
		Rows: []cluster.Row{
			{Workload: cluster.ReadWrite, Path: cluster.PathDirect, Threads: 150, Result: direct,
				NodeConnections: []int64{151, 0, 0}, Runs: []cluster.Result{{TPS: 500.5}, {TPS: 510}}},
			{Workload: cluster.ReadWrite, Path: cluster.PathHAProxy, Threads: 450,
				Result:          cluster.Result{TPS: 80.25, IgnoredErrors: 118, Reconnects: 2},
				NodeConnections: []int64{150, 151, 152}, Runs: []cluster.Result{{TPS: 80.25}, {TPS: 90}}},
			{Workload: cluster.ReadWrite, Path: "epoll", Threads: 450, Err: errors.New("did not start: exited")},
		},
	}
}

func TestWriteGalera(t *testing.T) {
	rep := galeraReport()
	var b bytes.Buffer
	if err := WriteGalera(&b, rep); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"MariaDB 10.11.19-MariaDB, wsrep 26.4.23", "--table-size=1000 --time=5", "tps (median run)",
		"80.2", "118", "150/151/152", "71.7 (118 ignored errors)", "80.2 90.0", "failed",
		"oltp_read_write epoll: did not start: exited", "context, not a target"} {
		if !strings.Contains(out, want) {
			t.Errorf("%q missing from\n%s", want, out)
		}
	}
	golden.Check(t, "galera.txt", b.Bytes())
	// One run: no median, no column of runs; an unknown version is "-".
	rep.Config.Runs, rep.Version = 1, ""
	b.Reset()
	if err := WriteGalera(&b, rep); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "galera_one_run.txt", b.Bytes())
}
