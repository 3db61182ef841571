// Package routecheck holds the acceptance tests of hoprelay's MySQL router
// (hoprelay --route conn|rw): sysbench and the stock mariadb client through
// the hoprelay binary to a MariaDB primary and its replica, checked against
// the servers' own counters. The tests know the router only by its command
// line.
package routecheck
