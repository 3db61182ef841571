// Package mysql is hoplat's MySQL/MariaDB load client: Connect, Query,
// Prepare and the sysbench workloads (point select, oltp_read_only,
// read_write, write_only), with Protocol and ConnectOnly plugging them into
// pingpong's load client. It builds on package wire for the bytes; the mock
// mysqld it is measured against lives in package responder/mock, which it
// never imports outside tests.
package mysql
