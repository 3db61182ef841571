#!/usr/bin/env bash
# make bench-galera: the published Galera runs (docs/galera.md) on this machine. hopbench galera
# builds a three-node MariaDB Galera cluster, one node per network
# namespace on one bridge, with sysbench, HAProxy and hoprelay in a
# namespace of their own; bootstraps the first node, joins the others and
# waits until all three are Synced; prepares sysbench's 10 tables once; and
# runs oltp_read_only, oltp_write_only and oltp_read_write against one
# server at 150 threads and through HAProxy and each hoprelay engine at 450,
# printing sysbench's per-second lines on stderr and the table on stdout,
# with the published figures beside ours as context. Every node, proxy,
# namespace and temp dir is removed at the end and on Ctrl-C.
#
# Needs root (ip netns add), MariaDB with galera-4, sysbench and HAProxy
# (make deps). Sized for two cores by default, about five minutes:
# TABLE_SIZE (default 10000 rows per table), SECS (default 10 per run),
# DIRECT_THREADS (150) and PROXY_THREADS (450); RUNS (1) interleaved rounds
# of every path per workload; PATHS narrows the paths
# (e.g. direct,haproxy,epoll); any further arguments go to hopbench galera.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x bin/hopbench ] && [ -x bin/hoprelay ] || { echo "bench-galera: bin/hopbench or bin/hoprelay missing (make build)" >&2; exit 1; }
[ "$(id -u)" = 0 ] || { echo "bench-galera: network namespaces need root (sudo make bench-galera)" >&2; exit 1; }
args=(--table-size "${TABLE_SIZE:-10000}" --time "${SECS:-10}s"
	--direct-threads "${DIRECT_THREADS:-150}" --proxy-threads "${PROXY_THREADS:-450}" --runs "${RUNS:-1}")
[ -n "${PATHS:-}" ] && args+=(--paths "$PATHS")
echo "bench-galera: bin/hopbench galera ${args[*]} $*" >&2
exec bin/hopbench galera "${args[@]}" "$@"
