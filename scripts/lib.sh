# shellcheck shell=bash
# What the benchmark scripts share: finding programs, starting a process
# and waiting until it is ready, free ports, a MariaDB from a temporary
# datadir, and the cleanup that stops every process started, by PID.
#
# Source it from the repository root, after setting ME (the name that
# begins every message, e.g. bench-relay) and tmp (the run's temporary
# directory, removed by cleanup). Every process a script starts goes into
# pids; the script sets its own trap, e.g. `trap cleanup EXIT`.

pids=()
declare -A PORT

# cleanup stops every process in pids (kill, then wait, so none outlives
# the script) and removes $tmp.
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	rm -rf "$tmp"
}

# stop PID stops one process before the end and drops it from pids, so that
# cleanup never signals a PID that may since belong to another process.
stop() {
	local p keep=()
	kill "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
	for p in "${pids[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
	pids=("${keep[@]}")
}

# find_prog NAME prints NAME's path, on PATH or in /usr/sbin (not on a
# user's PATH on Debian), or nothing.
find_prog() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || true; }

# free_port picks an unused loopback port for the peers that cannot report
# the one the kernel chose (ss(8) lists the TCP listeners).
free_port() {
	# Below the kernel's ephemeral range (ip_local_port_range), so no
	# outgoing connection can hold the port between this check and the
	# bind; and free in every state, not only as a listener.
	local lo p
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || lo=32768
	[ "$lo" -gt 12000 ] || lo=32768
	while :; do
		p=$((10000 + RANDOM % (lo - 10000)))
		if [ -z "$(ss -Htan "sport = :$p" 2>/dev/null)" ]; then echo "$p"; return; fi
	done
}

# wait_ready ADDR PID waits (bounded, 10 s) until process PID listens on
# ADDR (a TCP port or a UNIX socket path); it fails if the process dies
# first (port taken meanwhile, bad config).
wait_ready() {
	local i
	for i in $(seq 200); do
		if [[ $1 == /* ]]; then
			[ -S "$1" ] && return 0
		else
			[ -n "$(ss -Htln "sport = :$1" 2>/dev/null)" ] && return 0
		fi
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# wait_line FILE PID waits (bounded, 10 s) until FILE, process PID's
# stdout, has a `listening ADDR` line (what hoplat's binaries print once
# bound, port 0 resolved) and prints ADDR; it fails if the process dies
# first.
wait_line() {
	local i
	for i in $(seq 200); do
		if grep -q '^listening ' "$1"; then
			awk '/^listening /{print $2; exit}' "$1"
			return 0
		fi
		kill -0 "$2" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# launch NAME CMD... starts a peer on a fresh free port ({PORT} in CMD,
# output in $tmp/NAME.log), trying another port if it does not come up, and
# sets PORT[NAME]. It runs in this shell, never in $(...), so that the
# process goes into pids; it fails (the log says why) after three tries.
launch() {
	local name=$1 try port pid
	shift
	for try in 1 2 3; do
		port=$(free_port)
		"${@//\{PORT\}/$port}" >"$tmp/$name.log" 2>&1 &
		pid=$!
		pids+=("$pid")
		if wait_ready "$port" "$pid"; then
			PORT[$name]=$port
			return 0
		fi
		stop "$pid"
	done
	return 1
}

# The MariaDB functions below keep a server's files in DBDIR, $tmp unless
# the caller sets it (mariadb_pair sets it to $tmp/replica for the
# replica): DBDIR/data, DBDIR/mysqld.sock, DBDIR/error.log.

# mariadb_install makes a fresh MariaDB datadir in $DBDIR/data.
mariadb_install() {
	local dir=${DBDIR:-$tmp}
	mkdir -p "$dir"
	# --tmpdir of its own: two bootstraps sharing /tmp remove each
	# other's temporary tables.
	"$(find_prog mariadb-install-db)" --no-defaults --datadir="$dir/data" --auth-root-authentication-method=normal \
		--skip-test-db --user=root --skip-name-resolve --tmpdir="$dir" >"$dir/install.log" 2>&1 ||
		{ echo "$ME: mariadb-install-db failed: $(tail -5 "$dir/install.log")" >&2; exit 1; }
}

# mariadbd_opts PORT BIND prints mariadbd's options for $DBDIR/data, served
# on $DBDIR/mysqld.sock and BIND:PORT, for a short-query benchmark (no binary
# log, no performance schema, no flush per commit).
mariadbd_opts() {
	local dir=${DBDIR:-$tmp}
	echo "--no-defaults --datadir=$dir/data --socket=$dir/mysqld.sock --port=$1" \
		"--bind-address=$2 --user=root --pid-file=$dir/mysqld.pid --log-error=$dir/error.log" \
		"--tmpdir=$dir --skip-name-resolve --skip-log-bin --performance-schema=OFF" \
		"--innodb-buffer-pool-size=128M --innodb-flush-log-at-trx-commit=0"
}

# mariadb_start PORT [OPTION...] makes a fresh datadir and starts mariadbd
# on it (mariadbd_opts PORT 127.0.0.1, then each OPTION), prefixed by the
# script's PIN_DB (e.g. taskset -c 1) when it sets one, output in
# $DBDIR/mariadbd.out; it returns once the server answers, its PID last in
# pids. It runs in this shell, never in $(...), so that cleanup knows the
# PID.
mariadb_start() {
	local port=$1 dir=${DBDIR:-$tmp}
	shift
	mariadb_install
	# shellcheck disable=SC2046 # mariadbd_opts prints several options
	"${PIN_DB[@]}" "$(find_prog mariadbd)" $(mariadbd_opts "$port" 127.0.0.1) "$@" >"$dir/mariadbd.out" 2>&1 &
	pids+=($!)
	mariadb_wait "${pids[-1]}"
}

# mariadb_pair PORT REPLICA_PORT starts a primary on PORT (mariadb_start,
# files in $tmp, a binary log in row format, server_id 1) and a replica of
# it on REPLICA_PORT (files in $tmp/replica, server_id 2, read_only) that
# follows it by GTID from the log's first event: what the caller then makes
# on the primary (mariadb_sbtest, sysbench prepare) reaches the replica
# through replication; mariadb_sync waits for it. Both PIDs go into pids,
# the replica's last.
mariadb_pair() {
	local port=$1 rport=$2
	# A later --log-bin overrides mariadbd_opts' --skip-log-bin.
	mariadb_start "$port" --server-id=1 --log-bin="$tmp/binlog" --binlog-format=ROW
	mariadb --no-defaults -uroot --socket="$tmp/mysqld.sock" -e "CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY 'repl';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';"
	DBDIR=$tmp/replica mariadb_start "$rport" --server-id=2 --relay-log="$tmp/replica/relay" --read-only=ON
	mariadb --no-defaults -uroot --socket="$tmp/replica/mysqld.sock" -e "CHANGE MASTER TO MASTER_HOST='127.0.0.1',
MASTER_PORT=$port, MASTER_USER='repl', MASTER_PASSWORD='repl', MASTER_USE_GTID=slave_pos, MASTER_CONNECT_RETRY=1;
START SLAVE;"
}

# mariadb_sync waits (bounded, 60 s) until mariadb_pair's replica has
# applied every transaction the primary had logged, and exits the script
# as soon as a replication thread reports an error, or at 60 s.
mariadb_sync() {
	local pos i got st
	pos=$(mariadb --no-defaults -uroot --socket="$tmp/mysqld.sock" -N -e 'SELECT @@gtid_binlog_pos')
	for i in $(seq 60); do
		# MASTER_GTID_WAIT blocks in the replica until it has applied
		# pos (0) or a second has passed (-1).
		got=$(mariadb --no-defaults -uroot --socket="$tmp/replica/mysqld.sock" -N -e "SELECT MASTER_GTID_WAIT('$pos', 1)")
		[ "$got" = 0 ] && return 0
		st=$(mariadb --no-defaults -uroot --socket="$tmp/replica/mysqld.sock" -e 'SHOW SLAVE STATUS\G' |
			awk -F': ' '/Last_(IO|SQL)_Error:/ && $2 != "" {print}')
		[ -z "$st" ] || { echo "$ME: replication stopped: $st" >&2; exit 1; }
	done
	echo "$ME: replica has not applied the primary's GTID $pos after 60 s" >&2
	exit 1
}

# mariadb_sbtest makes the database and the user sysbench logs in as
# (sbtest, password sbtest), from TCP and from the socket.
mariadb_sbtest() {
	mariadb --no-defaults -uroot --socket="${DBDIR:-$tmp}/mysqld.sock" -e "CREATE DATABASE sbtest;
CREATE USER 'sbtest'@'%' IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO 'sbtest'@'%';
CREATE USER 'sbtest'@'localhost' IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO 'sbtest'@'localhost';"
}

# mariadb_wait PID waits (bounded, 30 s) until mariadbd PID answers root on
# $DBDIR/mysqld.sock, and exits the script if it dies or does not.
mariadb_wait() {
	local i dir=${DBDIR:-$tmp}
	for i in $(seq 300); do
		mariadb --no-defaults -uroot --socket="$dir/mysqld.sock" -e 'select 1' >/dev/null 2>&1 && return 0
		kill -0 "$1" 2>/dev/null || { echo "$ME: mariadbd exited: $(tail -5 "$dir/error.log")" >&2; exit 1; }
		[ "$i" = 300 ] && { echo "$ME: mariadbd not ready after 30 s" >&2; exit 1; }
		sleep 0.1
	done
}
