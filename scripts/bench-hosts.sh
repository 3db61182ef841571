#!/usr/bin/env bash
# make bench-hosts: MXS-1515's table (docs/hopbench.md, "The experiments hoplat reproduces") with the database
# on a host of its own. The topology file puts the client and every relay
# (direct, hoprelay's epoll engine, socat, HAProxy: those installed) in one
# network namespace, app, and the database in another, db, joined by a veth
# pair, so the relay's upstream hop crosses a second IP stack instead of
# loopback; the client leg runs over TCP and over a UNIX socket. The
# database is a real MariaDB when it is installed (its files prepared here
# with sysbench's table, then served inside db for the run through the
# file's BACKEND_START), else pongd's MySQL mock; both answer the file's
# COMMAND. Components are pinned as the file's <COMPONENT>_CPUS say (client
# and relays on one CPU, the database on another; MariaDB through taskset).
# hopbench removes the namespaces and stops the database at the end, on
# error and on Ctrl-C.
#
# Needs root (ip netns add). ROUNDS (default 5; at least 2, as the file
# discards one) and SECS (default 3) size the run, about two minutes; DB=mock uses pongd even with MariaDB
# installed; TOPOLOGY names another file (default
# hosts/testdata/mxs-1515.conf); any further arguments go to hopbench and
# override the file (--placement 'client=0 relay=0 server=0', --paths …).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
TOPOLOGY=${TOPOLOGY:-hosts/testdata/mxs-1515.conf}
for b in hopbench pongd pingpong hoprelay; do
	[ -x "bin/$b" ] || { echo "bench-hosts: bin/$b missing (make build)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench-hosts: network namespaces need root (sudo make bench-hosts)" >&2; exit 1; }
command -v ip >/dev/null || { echo "bench-hosts: ip (iproute2) not installed (make deps)" >&2; exit 1; }
[ -r "$TOPOLOGY" ] || { echo "bench-hosts: no topology file $TOPOLOGY" >&2; exit 1; }

DB=${DB:-mariadb}
TABLE_SIZE=10000

# What the file says, for the header: its hosts and its placement.
keys() { grep -E "^($1)=" "$TOPOLOGY" | tr -d "\"'" | tr '\n' ' '; }
echo "bench-hosts: $TOPOLOGY: $(keys 'HOST_[A-Z0-9]+')"
echo "bench-hosts: components $(keys '[A-Z]+_HOST')"
echo "bench-hosts: pinned $(keys '[A-Z]+_CPUS')"

ME=bench-hosts
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
have_mariadb=1
for p in mariadbd mariadb-install-db mariadb sysbench; do
	[ -n "$(find_prog "$p")" ] || have_mariadb=0
done
if [ "$DB" = mock ] || [ "$have_mariadb" = 0 ]; then
	echo "bench-hosts: database: pongd's MySQL mock in db$([ "$have_mariadb" = 0 ] && echo " (MariaDB or sysbench not installed: make deps)")"
	echo "bench-hosts: $ROUNDS interleaved rounds x ${SECS}s per path"
	exec bin/hopbench --topology "$TOPOLOGY" --runs "$ROUNDS" --time "${SECS}s" "$@"
fi

# A short directory: the socket path must fit sun_path's 108 bytes.
tmp=$(mktemp -d /tmp/hoplat-bench-hosts.XXXXXX)
trap cleanup EXIT

# Prepare the files here, on loopback: users and sysbench's table.
port=$(free_port)
mariadbd=$(find_prog mariadbd)
serve() { # bind-address -> mariadbd's command line
	echo "$mariadbd $(mariadbd_opts "$port" "$1") --max-connections=200"
}
mariadb_install
# Started in this shell, not in $(...), so that cleanup knows its PID.
# shellcheck disable=SC2046
$(serve 127.0.0.1) >"$tmp/mariadbd.out" 2>&1 &
pids+=($!)
mariadb_wait "${pids[-1]}"
root=(mariadb --no-defaults -uroot --socket="$tmp/mysqld.sock")
"${root[@]}" -e "CREATE DATABASE sbtest;
CREATE USER 'sbtest'@'%' IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO 'sbtest'@'%';"
sysbench oltp_read_only --db-driver=mysql --mysql-socket="$tmp/mysqld.sock" --mysql-user=sbtest \
	--mysql-password=sbtest --mysql-db=sbtest --tables=1 --table-size=$TABLE_SIZE prepare >"$tmp/prepare.log" 2>&1 ||
	{ echo "bench-hosts: sysbench prepare failed: $(tail -5 "$tmp/prepare.log")" >&2; exit 1; }
version=$("${root[@]}" -N -e 'select version()')
stop "${pids[-1]}"

# The same files, served inside db for the run: the file plus the backend.
# The k-th netns host of the file gets 10.77.0.k (package hosts).
db_addr=$(awk -F= '/^HOST_[A-Z0-9]+=["'"'"']?netns:/{n++; if ($1=="HOST_DB") {print "10.77.0." n; exit}}' "$TOPOLOGY")
[ -n "$db_addr" ] || { echo "bench-hosts: $TOPOLOGY has no HOST_DB=netns:… for MariaDB (DB=mock runs pongd)" >&2; exit 1; }
server_cpus=$(grep -E '^SERVER_CPUS=' "$TOPOLOGY" | cut -d= -f2 | tr -d "\"'" || true)
pin=
[ -n "$server_cpus" ] && pin="$(find_prog taskset) -c $server_cpus "
{
	grep -v -E '^(SERVER_CPUS|BACKEND|BACKEND_HOST|BACKEND_START)=' "$TOPOLOGY"
	echo "BACKEND_HOST=db"
	echo "BACKEND=\"mysql://sbtest:sbtest@$db_addr:$port/sbtest\""
	echo "BACKEND_START=\"$pin$(serve "$db_addr")\""
} >"$tmp/topology.conf"
echo "bench-hosts: database: MariaDB $version in db at $db_addr:$port${pin:+, pinned to CPU $server_cpus}, sbtest1 of $TABLE_SIZE rows"
echo "bench-hosts: $ROUNDS interleaved rounds x ${SECS}s per path"
bin/hopbench --topology "$tmp/topology.conf" --runs "$ROUNDS" --time "${SECS}s" "$@"
