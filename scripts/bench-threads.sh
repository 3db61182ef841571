#!/usr/bin/env bash
# make bench-threads: mysql-proxy's table (docs/hopbench.md, "The experiments hoplat reproduces") through every
# path: one hopbench command sweeps THREADS (default 1,2,4,8,16,32,64,128)
# on the direct path and through every relay, first against pongd's MySQL
# mock, then against a real MariaDB from a temporary datadir (sysbench's
# table prepared there), and prints per thread count each path's tps and
# p95, its tps against the direct path's, the relay's share of the p50, and
# the peak RSS, threads and descriptors of client, relay and server. Each
# hopbench command is timed; the target is under five minutes on two cores.
#
# SECS (default 0.35, hopbench's own), ROUNDS (default 2, none discarded),
# PLACEMENT (default none: unpinned; a CPU of its own for the relay, spread,
# starved it on a machine other work loaded, to 200 tps at 64 threads), TRANSPORTS
# (default tcp), COMMAND (default point-select), DB (both, mock or mariadb);
# further arguments go to both hopbench commands. TMPROOT (default
# /dev/shm) holds MariaDB's datadir, out of the disk's way.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-1,2,4,8,16,32,64,128}
SECS=${SECS:-0.35}
ROUNDS=${ROUNDS:-2}
PLACEMENT=${PLACEMENT:-none}
TRANSPORTS=${TRANSPORTS:-tcp}
COMMAND=${COMMAND:-point-select}
DB=${DB:-both}
for b in hopbench pongd pingpong hoprelay; do
	[ -x "bin/$b" ] || { echo "bench-threads: bin/$b missing (make build)" >&2; exit 1; }
done
ME=bench-threads
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
tmp=$(mktemp -d "${TMPROOT:-/dev/shm}/hoplat-bench-threads.XXXXXX")
trap cleanup EXIT

args=(--threads "$THREADS" --transports "$TRANSPORTS" --placement "$PLACEMENT" --runs "$ROUNDS" --discard 0
	--time "${SECS}s" --round-requests 0 --trace=false --command "$COMMAND")
run() { # label, then hopbench's arguments
	local label=$1 start end
	shift
	echo "bench-threads: $label: bin/hopbench ${args[*]} $*"
	start=$(date +%s)
	bin/hopbench "${args[@]}" "$@" || echo "bench-threads: $label: hopbench exited $?"
	end=$(date +%s)
	echo "bench-threads: $label: one hopbench command, $((end - start)) s"
	echo
}

if [ "$DB" != mariadb ]; then
	run "pongd's MySQL mock" "$@"
fi
[ "$DB" = mock ] && exit 0
for p in mariadbd mariadb-install-db mariadb sysbench; do
	[ -n "$(find_prog "$p")" ] || { echo "bench-threads: $p not installed (make deps)" >&2; exit 1; }
done
port=$(free_port)
sock=$tmp/mysqld.sock
mariadb_start "$port" --max-connections=600
mariadb_sbtest
sysbench oltp_read_only --db-driver=mysql --mysql-socket="$sock" --mysql-user=sbtest --mysql-password=sbtest \
	--mysql-db=sbtest --tables=1 --table-size=10000 prepare >"$tmp/prepare.log" 2>&1 ||
	{ echo "bench-threads: sysbench prepare failed: $(tail -5 "$tmp/prepare.log")" >&2; exit 1; }
run "MariaDB $(mariadb --no-defaults -uroot --socket="$sock" -N -e 'select version()')" \
	--backend "mysql://sbtest:sbtest@127.0.0.1:$port/sbtest?socket=$sock" "$@"
