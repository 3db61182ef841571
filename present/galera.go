package present

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/hoplat/hoplat/cluster"
)

// WriteGalera prints hopbench galera's table: per workload and path, this
// machine's tps, qps, p95, ignored errors, reconnects and connections per
// node, with the published tps beside it, then each path that failed.
func WriteGalera(w io.Writer, r *cluster.Report) error {
	writeGaleraHead(w, r)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	runs := r.Config.Runs > 1
	writeGaleraHeader(tw, runs)
	for _, row := range r.Rows {
		writeGaleraRow(tw, row, runs)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, row := range r.Rows {
		if row.Err != nil {
			fmt.Fprintf(w, "%s %s: %v\n", row.Workload, row.Path, row.Err)
		}
	}
	_, err := fmt.Fprintln(w, "\npublished: a Galera-behind-HAProxy run published on another machine, its own table size, one run each: context, not a target.")
	return err
}

// writeGaleraHead names the cluster, sysbench's command line and how the
// paths were run.
func writeGaleraHead(w io.Writer, r *cluster.Report) {
	c := r.Config
	fmt.Fprintf(w, "Galera behind proxies: %d nodes, MariaDB %s, wsrep %s, one network namespace each (%s)\n",
		len(r.Nodes), orDash(r.Version), orDash(r.Wsrep), strings.Join(r.Nodes, ", "))
	fmt.Fprintf(w, "sysbench --tables=%d --table-size=%d --time=%d --range_selects=off --db-ps-mode=disable --mysql-ignore-errors=%s\n",
		c.Tables, c.TableSize, int(c.Time/time.Second), c.IgnoreErrors)
	fmt.Fprintf(w, "direct: one server (the first node); the proxies balance roundrobin over all %d; %d interleaved round(s) per workload\n\n", len(r.Nodes), c.Runs)
}

// writeGaleraHeader is the table's column names; with several runs the
// tps is the median run's and every run's tps follows.
func writeGaleraHeader(tw io.Writer, runs bool) {
	tps := "tps"
	if runs {
		tps = "tps (median run)"
	}
	fmt.Fprintf(tw, "workload\tpath\tthreads\t%s\tqps\tp95 ms\tignored errors\treconnects\tconnections per node\tpublished tps\t", tps)
	if runs {
		fmt.Fprint(tw, "tps per run\t")
	}
	fmt.Fprintln(tw)
}

// writeGaleraRow is one workload on one path: "failed" where it did not
// run, its median run's figures where it did.
func writeGaleraRow(tw io.Writer, row cluster.Row, runs bool) {
	pub := galeraPublished(row.Workload, row.Path)
	if row.Err != nil {
		fmt.Fprintf(tw, "%s\t%s\t%d\tfailed\t\t\t\t\t\t%s\t\n", row.Workload, row.Path, row.Threads, pub)
		return
	}
	res := row.Result
	conns := make([]string, 0, len(row.NodeConnections))
	for _, n := range row.NodeConnections {
		conns = append(conns, strconv.FormatInt(n, 10))
	}
	fmt.Fprintf(tw, "%s\t%s\t%d\t%.1f\t%.1f\t%.2f\t%d\t%d\t%s\t%s\t", row.Workload, row.Path, row.Threads,
		res.TPS, res.QPS, res.LatencyMS.P95, res.IgnoredErrors, res.Reconnects, orDash(strings.Join(conns, "/")), pub)
	if runs {
		tps := make([]string, 0, len(row.Runs))
		for _, r := range row.Runs {
			tps = append(tps, strconv.FormatFloat(r.TPS, 'f', 1, 64))
		}
		fmt.Fprintf(tw, "%s\t", strings.Join(tps, " "))
	}
	fmt.Fprintln(tw)
}

// galeraPublished is the published tps of a workload on a path, with
// what else was published about it, or "-".
func galeraPublished(workload, path string) string {
	v, ok := cluster.Published[workload][path]
	if !ok {
		return "-"
	}
	pub := strconv.FormatFloat(v, 'f', -1, 64)
	if n := cluster.PublishedNote[workload][path]; n != "" {
		pub += " (" + n + ")"
	}
	return pub
}
