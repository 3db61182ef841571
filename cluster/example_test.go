package cluster_test

import (
	"fmt"
	"os"

	"github.com/hoplat/hoplat/cluster"
)

// ParseSysbench reads sysbench's final report and its per-second lines.
func ExampleParseSysbench() {
	out, err := os.ReadFile("testdata/oltp_write_only.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := cluster.ParseSysbench(out)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.2f tps, %d ignored errors, p95 %.2f ms, %d progress lines\n", r.TPS, r.IgnoredErrors, r.LatencyMS.P95, len(r.Intervals))
	// Output: 485.05 tps, 139 ignored errors, p95 87.56 ms, 2 progress lines
}

// Status.Synced is the condition Start waits for on every node.
func ExampleStatus_Synced() {
	s := cluster.Status{ClusterSize: 3, State: "Synced", Ready: true, ClusterStatus: "Primary"}
	fmt.Println(s.Synced(3), s.Synced(2))
	// Output: true false
}
