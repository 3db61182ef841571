// Package mysql speaks the MySQL/MariaDB client/server protocol for both ends
// of a hoplat ping-pong: a load client (Connect, Query, Prepare, the sysbench
// workloads) and an embedded mock mysqld (Server) that holds sysbench's
// tables, computed from a seed instead of stored (package sbtable), and
// answers what sysbench, drivers and monitors send with the result sets,
// OK packets and errors mysqld gives. The codec reuses its buffers so that the steady path of either
// end allocates nothing per packet, and every decoder rejects malformed input
// with an error that names the field instead of panicking. Protocol,
// ConnectOnly and Handler plug both ends into pingpong's load client and
// responder.
package mysql
