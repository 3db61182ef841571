package present

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hoplat/hoplat/analysis/hop"
)

func TestWriteProxyTable(t *testing.T) {
	var paths []hop.PathResult
	for _, n := range []int{1, 4} {
		paths = append(paths,
			hop.PathResult{Name: "direct tcp", Relay: hop.Direct, ClientTransport: hop.TCP, Threads: n, TPS: 1000 * float64(n),
				LatencyUs: hop.Latency{P50: 100, P95: 150}},
			hop.PathResult{Name: "epoll tcp->tcp", Relay: "epoll", ClientTransport: hop.TCP, Threads: n, TPS: 500 * float64(n),
				LatencyUs: hop.Latency{P50: 200, P95: 300}, AddedUs: &hop.Added{P50: 100}, Errors: 2,
				Resources: &hop.Resources{ClientRSSKiB: 10240, RelayRSSKiB: 2048, ServerRSSKiB: 20480, RelayThreads: 7, ServerThreads: 140, RelayFDs: 12, ServerFDs: 260}})
	}
	var b bytes.Buffer
	if err := WriteProxyTable(&b, &hop.Report{Paths: paths}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"threads", "tps/direct", "relay's share of p50"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2+4 {
		t.Fatalf("%d lines, want a title, a head and 4 rows:\n%s", len(lines), out)
	}
	if f := strings.Fields(lines[5]); len(f) != 11 || f[0] != "4" || f[1] != "epoll" || f[3] != "2000" || f[4] != "300" || f[5] != "0.50" || f[6] != "50%" || f[7] != "2" ||
		f[8] != "10/2/20" || f[9] != "7/140" || f[10] != "12/260" {
		t.Errorf("last row %q", lines[5])
	}
	if f := strings.Fields(lines[2]); f[0] != "1" || f[1] != "direct" || f[5] != "-" || f[6] != "-" || f[8] != "-" {
		t.Errorf("first row %q", lines[2])
	}
	b.Reset()
	if err := WriteProxyTable(&b, &hop.Report{Paths: paths[:2]}); err != nil || b.Len() != 0 {
		t.Errorf("one thread count printed %q, %v", b.String(), err)
	}
}

func TestWriteSweep(t *testing.T) {
	sw := &hop.Sweep{Instances: 3, Servers: []hop.SweepServer{{Name: "embedded on db1", Address: "tcp:10.77.0.2:3306"}, {Name: "embedded on db2", Address: "tcp:10.77.0.3:3306"}},
		Rows: []hop.SweepRow{
			{Threads: 1, MeanTPS: 300.4, Instances: []hop.SweepInstance{{Instance: 1, TPS: 100.1, P95Us: 10}, {Instance: 2, Server: 1, TPS: 100.2, P95Us: 11}, {Instance: 3, TPS: 100.1, P95Us: 12}}},
			{Threads: 128, MeanTPS: 8048.2, Errors: 1, Ignored: 4, Instances: []hop.SweepInstance{{Instance: 1, TPS: 4000, P95Us: 900}, {Instance: 2, Server: 1, Failed: "run 1: refused"}, {Instance: 3, TPS: 4048.2, P95Us: 950}}},
		}}
	var b bytes.Buffer
	if err := WriteSweep(&b, sw); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"instance 3 -> server 1: embedded on db1 at tcp:10.77.0.2:3306", "instance 2 -> server 2",
		"failed", "1 (+4 ignored)", "threads 128, instance 2: run 1: refused", "Final results (sum of the instances, tps):\nThreads: 1 Mean: 300\nThreads: 128 Mean: 8048\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}
