package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestPickMedian(t *testing.T) {
	r := Row{Runs: []Result{{TPS: 30}, {TPS: 10}, {TPS: 20}, {TPS: 40}}, runConns: [][]int64{{3}, {1}, {2}, {4}}}
	r.pickMedian()
	if r.Result.TPS != 20 || r.NodeConnections[0] != 2 {
		t.Errorf("median of 4: got %v %v, want the lower middle, 20", r.Result.TPS, r.NodeConnections)
	}
	r = Row{Runs: []Result{{TPS: 5}}, runConns: [][]int64{{9}}}
	r.pickMedian()
	if r.Result.TPS != 5 {
		t.Errorf("one run: got %v", r.Result.TPS)
	}
}

func TestWriteText(t *testing.T) {
	rep := &Report{
		Config:  BenchConfig{Tables: 10, TableSize: 1000, Time: 5 * time.Second, IgnoreErrors: DefaultIgnoreErrors, Runs: 2},
		Version: "10.11.19-MariaDB", Wsrep: "26.4.23", Nodes: []string{"10.77.0.2:3306", "10.77.0.3:3306", "10.77.0.4:3306"},
		Rows: []Row{
			{Workload: ReadWrite, Path: PathHAProxy, Threads: 450, Result: Result{TPS: 80.25, IgnoredErrors: 118},
				NodeConnections: []int64{150, 151, 152}, Runs: []Result{{TPS: 80.25}, {TPS: 90}}},
			{Workload: ReadWrite, Path: "epoll", Threads: 450, Err: errors.New("did not start: exited")},
		},
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
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
	// The reader has the repository, not the notes it grew from.
	for _, outside := range []string{"field-notes", "../shared"} {
		if strings.Contains(out, outside) {
			t.Errorf("the table cites %s, which the repository lacks:\n%s", outside, out)
		}
	}
}
