// Package cluster runs a MariaDB Galera cluster on this machine, one node
// per network namespace of a hosts.Testbed, and holds the bench that is
// run against it as data: sysbench's oltp_read_only, oltp_write_only and
// oltp_read_write at 150 threads against one server and at 450 through
// HAProxy (balance roundrobin, option mysql-check) and through each
// hoprelay engine in front of the three nodes (BenchConfig, Report, Row,
// the published figures).
//
// Start bootstraps the first node (--wsrep-new-cluster), joins the others
// one at a time (each by a state transfer from a synced node) and returns
// once every node reports wsrep_local_state_comment=Synced in a cluster of
// the full size, read over the client protocol; Cluster.Close stops the
// nodes. Sysbench writes sysbench's command line and ParseSysbench reads
// its report. driver.Galera runs the bench, starting the proxies through
// the driver's components as every hopbench path is started, and
// present.WriteGalera says the table in words. Its messages and progress
// lines say "galera:", the cluster's kind, as hopbench galera prints them.
//
// It sits beside hosts: it imports hosts (the namespaces and the
// processes), roles (the engines) and internal/locate, never the driver.
package cluster
