package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hoplat/hoplat/cluster"
	"github.com/hoplat/hoplat/cmd/internal/usage"
	"github.com/hoplat/hoplat/driver"
	"github.com/hoplat/hoplat/driver/event"
	"github.com/hoplat/hoplat/internal/cli"
	"github.com/hoplat/hoplat/internal/list"
	"github.com/hoplat/hoplat/present"
)

// runGalera is `hopbench galera`: the sysbench table against a
// Galera cluster built in network namespaces on this machine (package
// cluster, run by driver.Galera). Progress goes to stderr, the table to
// stdout.
func runGalera(args []string) error {
	cfg, quiet, err := galeraFlags(args)
	if err != nil {
		return err
	}
	ctx, stop := cli.SignalContext(context.Background())
	defer stop()
	// The bench's steps, and the hosts' and the nodes', are said by
	// present.
	var progress event.Sink
	if !quiet {
		progress = present.NewProgress(os.Stderr, present.ProgressRounds)
	}
	rep, err := driver.Galera(ctx, cfg, progress)
	if ctx.Err() != nil {
		return fmt.Errorf("%w; every node, proxy and namespace removed", context.Cause(ctx))
	}
	if err != nil {
		return err
	}
	if err := present.WriteGalera(os.Stdout, rep); err != nil {
		return err
	}
	for _, r := range rep.Rows {
		if r.Err != nil {
			return fmt.Errorf("galera: %s through %s: %w", r.Workload, r.Path, r.Err)
		}
	}
	return nil
}

// galeraHelp lays out hopbench galera --help; its flags are galeraFlags'.
var galeraHelp = usage.Help{
	Usage: []string{"hopbench galera [options]   (needs root: network namespaces)"},
	About: "Builds a MariaDB Galera cluster, one node per network namespace on one bridge, and runs " +
		"sysbench against it: one server at --direct-threads, then HAProxy and each " +
		"hoprelay engine in front of every node at --proxy-threads. Everything it made is removed at " +
		"the end and on Ctrl-C.",
	Groups: []usage.Group{
		usage.Section("Cluster", "nodes N", "sst METHOD", "buffer-pool SIZE"),
		usage.Section("Workload", "workloads LIST", "paths LIST", "tables N", "table-size N", "time DUR",
			"direct-threads N", "proxy-threads N", "ignore-errors LIST", "runs N"),
		usage.Section("Output", "quiet"),
	},
	Examples: []string{
		"hopbench galera",
		"hopbench galera --table-size 1000 --time 5s",
		"hopbench galera --paths direct,haproxy,epoll --runs 3",
	},
}

// galeraFlags reads hopbench galera's flags: the bench's config, and
// whether --quiet turned its progress off.
func galeraFlags(args []string) (cluster.BenchConfig, bool, error) {
	var c cluster.BenchConfig
	fs := pflag.NewFlagSet("hopbench galera", pflag.ContinueOnError)
	workloads := fs.String("workloads", strings.Join(cluster.Workloads, ","), "sysbench tests to run, in order")
	paths := fs.String("paths", strings.Join(cluster.DefaultPaths(), ","), "paths: direct (the first node alone), haproxy, and hoprelay engines")
	fs.IntVar(&c.Tables, "tables", 10, "sysbench --tables")
	fs.IntVar(&c.TableSize, "table-size", 10000, "sysbench --table-size (rows per table)")
	fs.DurationVar(&c.Time, "time", 10*time.Second, "length of each sysbench run (whole seconds)")
	fs.IntVar(&c.DirectThreads, "direct-threads", 150, "sysbench --threads against the one server")
	fs.IntVar(&c.ProxyThreads, "proxy-threads", 450, "sysbench --threads through each proxy")
	fs.StringVar(&c.IgnoreErrors, "ignore-errors", cluster.DefaultIgnoreErrors, "sysbench --mysql-ignore-errors: counted and retried, reported as ignored errors")
	fs.IntVar(&c.Runs, "runs", 1, "interleaved rounds of every path per workload (the table gives the run of median tps)")
	fs.IntVar(&c.Nodes, "nodes", 3, "cluster size")
	fs.StringVar(&c.SST, "sst", "rsync", "wsrep_sst_method of the joining nodes (rsync is the one tested)")
	fs.StringVar(&c.BufferPool, "buffer-pool", "64M", "each node's innodb_buffer_pool_size")
	quiet := fs.BoolP("quiet", "q", false, "no progress on stderr")
	if err := usage.Parse(fs, &galeraHelp, version, args, os.Stdout); err != nil {
		return c, false, err
	}
	if fs.NArg() > 0 {
		return c, false, cli.Usage(fmt.Errorf("galera: unexpected argument %q", fs.Arg(0)))
	}
	// The library reads 0 as its default; on the command line it is a
	// mistake.
	for _, name := range []string{"tables", "table-size", "direct-threads", "proxy-threads", "runs", "nodes"} {
		if v, _ := fs.GetInt(name); v < 1 {
			return c, false, cli.Usage(fmt.Errorf("--%s \"%d\": want at least 1", name, v))
		}
	}
	var err error
	if c.Workloads, err = list.Items(*workloads); err != nil {
		return c, false, cli.BadList("--workloads", *workloads, err)
	}
	if c.Paths, err = list.Items(*paths); err != nil {
		return c, false, cli.BadList("--paths", *paths, err)
	}
	if err := c.Check(); err != nil {
		return c, false, cli.Usage(err)
	}
	return c, *quiet, nil
}
