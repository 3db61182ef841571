// Package cluster runs a MariaDB Galera cluster on this machine, one node
// per network namespace of a hosts.Testbed, and field-notes.md §4's table
// against it: sysbench's oltp_read_only, oltp_write_only and
// oltp_read_write at 150 threads against one server and at 450 through
// HAProxy (balance roundrobin, option mysql-check) and through each
// hoprelay engine in front of the three nodes.
//
// Start bootstraps the first node (--wsrep-new-cluster), joins the others
// one at a time (each by a state transfer from a synced node) and returns
// once every node reports wsrep_local_state_comment=Synced in a cluster of
// the full size, read over the client protocol; Cluster.Close stops the
// nodes. Bench builds the namespaces, the cluster, the proxies and the
// sysbench runs, writes per-second progress, returns the table as data
// (present.WriteGalera says it in words), and removes it all at the end,
// on error and when its context is cancelled (Ctrl-C).
// ParseSysbench reads sysbench 1.0's report. Its messages and progress
// lines say "galera:", the cluster's kind, as hopbench galera prints them.
//
// It sits beside hosts: it imports hosts (the namespaces and the
// processes), sockets, proxyconf (hoprelay's and HAProxy's command lines
// and HAProxy's configuration, the ones the driver's paths run) and roles
// (the engines), never the driver.
package cluster
