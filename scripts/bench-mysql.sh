#!/usr/bin/env bash
# make bench-mysql: is pingpong --proto mysql as fast a MySQL client as
# sysbench, and cheaper per query?
#
# A real MariaDB from a temporary datadir (free port, temp socket) gets
# sysbench's table (1 table, TABLE_SIZE rows); then sysbench WORKLOAD
# (default oltp_point_select; oltp_read_only, oltp_read_write and
# oltp_write_only run pingpong's oltp-ro, oltp-rw and oltp-wo) and
# pingpong's same command, THREADS threads
# each, take turns in interleaved rounds (sysbench, pingpong, sysbench, ...), in
# each statement mode: prepared (sysbench's default --db-ps-mode=auto,
# pingpong's --ps) and text (--db-ps-mode=disable, --ps=false). Per tool it
# prints the median tps over the rounds, pingpong/sysbench (target >= 1.0),
# and the client's own CPU per query: the process's user+sys time
# (/usr/bin/time) over the queries it ran.
#
# BIN (default bin), ROUNDS (default 5), SECS (default 3), TABLE_SIZE (default 10000),
# TMPROOT (where the datadir goes, default /tmp),
# TRANSPORT (tcp or unix, default tcp), MODES (default "ps text"), THREADS
# (default 1; several, e.g. "1 16", are measured in turn inside each round),
# IO (pingpong's I/O models, each measured in turn after sysbench in
# every round; default "default": no --io flag, pingpong as a user runs it;
# blocking, netpoll, spin or auto pass --io, e.g. IO="default blocking").
# PLACEMENT pins every process with taskset: packed (default) puts MariaDB
# and the client on CPU 0, spread puts MariaDB on CPU 1 and the client on
# CPU 0, none pins nothing and leaves placement to the scheduler (as a user
# runs the tools; marked so in the output).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
TABLE_SIZE=${TABLE_SIZE:-10000}
TRANSPORT=${TRANSPORT:-tcp}
MODES=${MODES:-ps text}
THREADS=${THREADS:-1}
IO=${IO:-default}
PLACEMENT=${PLACEMENT:-packed}
WORKLOAD=${WORKLOAD:-oltp_point_select}
case "$WORKLOAD" in
oltp_point_select) command=point-select ;;
oltp_read_only) command=oltp-ro ;;
oltp_read_write) command=oltp-rw ;;
oltp_write_only) command=oltp-wo ;;
*) echo "bench-mysql: WORKLOAD=$WORKLOAD: want oltp_point_select, oltp_read_only, oltp_read_write or oltp_write_only" >&2; exit 2 ;;
esac
case "$PLACEMENT" in
packed) PIN_DB=(taskset -c 0) PIN_CLIENT=(taskset -c 0) where="client and MariaDB on CPU 0 (taskset)" ;;
spread) PIN_DB=(taskset -c 1) PIN_CLIENT=(taskset -c 0) where="client on CPU 0, MariaDB on CPU 1 (taskset)" ;;
none) PIN_DB=() PIN_CLIENT=() where="UNPINNED, placed by the scheduler" ;;
*) echo "bench-mysql: PLACEMENT=$PLACEMENT: want packed, spread or none" >&2; exit 2 ;;
esac
for io in $IO; do
	case "$io" in
	default | netpoll | blocking | spin | auto) ;;
	*) echo "bench-mysql: IO=$io: want default, netpoll, blocking, spin or auto" >&2; exit 2 ;;
	esac
done

BIN=${BIN:-bin}
[ -x "$BIN/pingpong" ] || { echo "bench-mysql: $BIN/pingpong missing (make build)" >&2; exit 1; }
ME=bench-mysql
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
for p in mariadbd mariadb-install-db mariadb sysbench; do
	[ -n "$(find_prog "$p")" ] || { echo "bench-mysql: $p not installed (make deps)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-mysql: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

# A short directory: the socket path must fit sun_path's 108 bytes. With
# writes (oltp_read_write, oltp_write_only) the datadir's disk decides
# the figures on a shared machine: TMPROOT=/dev/shm puts it in memory, so
# that the clients are what is compared.
tmp=$(mktemp -d "${TMPROOT:-/tmp}/hoplat-bench-mysql.XXXXXX")
trap cleanup EXIT

port=$(free_port)
sock=$tmp/mysqld.sock
mariadb_start "$port"
mariadb_sbtest
root=(mariadb --no-defaults -uroot --socket="$sock")

if [ "$TRANSPORT" = unix ]; then
	sb_via=(--mysql-socket="$sock")
	target=unix:$sock
else
	sb_via=(--mysql-host=127.0.0.1 --mysql-port="$port")
	target=tcp:127.0.0.1:$port
fi
# Ids drawn uniformly, as pingpong draws them (sysbench 1.0.20's default
# is "special"); the same errors ignored as pingpong's default.
sb_args=(--db-driver=mysql "${sb_via[@]}" --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest
	--tables=1 --table-size="$TABLE_SIZE" --rand-type=uniform --mysql-ignore-errors=1213,1020,1205,1047)
sysbench oltp_read_only "${sb_args[@]}" prepare >"$tmp/prepare.log" 2>&1 ||
	{ echo "bench-mysql: sysbench prepare failed: $(tail -5 "$tmp/prepare.log")" >&2; exit 1; }

median() { sort -g | awk '{v[NR]=$1} END{if(NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

# Each measure appends "tps cpu_us_per_query" to $tmp/TOOL-MODE-THREADS.
measure_sysbench() { # mode threads
	local ps=auto out=$tmp/sb.out
	[ "$1" = text ] && ps=disable
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" "${PIN_CLIENT[@]}" sysbench "$WORKLOAD" "${sb_args[@]}" --threads="$2" \
		--time="$SECS" --db-ps-mode="$ps" run >"$out" 2>&1 ||
		{ echo "bench-mysql: sysbench run failed: $(tail -5 "$out")" >&2; exit 1; }
	local tps queries errs
	tps=$(awk '/transactions:/{gsub(/[(]/,"",$3); print $3; exit}' "$out")
	queries=$(awk '/queries:/{print $2; exit}' "$out")
	errs=$(awk '/ignored errors:/{print $3; exit}' "$out")
	# Deadlocks between writers are retried, as pingpong retries them;
	# a read-only workload has none to retry.
	case "$WORKLOAD" in oltp_read_write | oltp_write_only) ;; *)
		[ "$errs" = 0 ] || { echo "bench-mysql: sysbench counted $errs errors" >&2; exit 1; } ;;
	esac
	awk -v q="$queries" -v t="$tps" '{printf "%s %.3f\n", t, ($1+$2)*1e6/q}' "$tmp/cpu" >>"$tmp/sysbench-$1-$2"
}

measure_pingpong() { # mode threads io
	local ps=true out=$tmp/pp.json io_args=()
	[ "$1" = text ] && ps=false
	[ "$3" = default ] || io_args=(--io "$3")
	# The password travels in MYSQL_PWD, out of the argument list.
	MYSQL_PWD=sbtest /usr/bin/time -f '%U %S' -o "$tmp/cpu" "${PIN_CLIENT[@]}" "$BIN/pingpong" --proto mysql --target "$target" \
		--user sbtest --db sbtest --command "$command" --table-size "$TABLE_SIZE" --ps="$ps" \
		"${io_args[@]}" --threads "$2" --time "${SECS}s" \
		--format json >"$out" 2>"$tmp/pp.err" ||
		{ echo "bench-mysql: pingpong failed: $(cat "$tmp/pp.err")" >&2; exit 1; }
	# The first result's transactions, queries and elapsed_s, and the I/O
	# model that ran (an auto model names its choice in io_chosen) into
	# $tmp/ran-IO-THREADS.
	awk -v cpu="$(cat "$tmp/cpu")" -v ran="$tmp/ran-$3-$2" '
		function val(l) { sub(/^[^:]*: */, "", l); gsub(/[",]/, "", l); return l }
		/"io":/ && !m { m = val($0) } /"io_chosen":/ { m = val($0) }
		/"transactions":/ && !t { t = val($0) } /"queries":/ && !q { q = val($0) }
		/"elapsed_s":/ && !e { e = val($0) }
		END { split(cpu, c, " "); printf "%.3f %.3f\n", t/e, (c[1]+c[2])*1e6/q; print m > ran }' "$out" >>"$tmp/pingpong-$3-$1-$2"
}

echo "bench-mysql: MariaDB $("${root[@]}" -N -e 'select version()') over $TRANSPORT, $WORKLOAD (pingpong --command $command), table-size $TABLE_SIZE"
echo "  machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs; placement $PLACEMENT: $where"
echo "  threads: $THREADS; pingpong --io: $IO (default = no --io flag, as a user runs it)"
echo "  $ROUNDS interleaved rounds x ${SECS}s per tool, I/O model, statement mode and thread count"
for r in $(seq "$ROUNDS"); do
	for n in $THREADS; do
		for m in $MODES; do
			measure_sysbench "$m" "$n"
			line=$(printf 'round %d %-4s %2s threads: sysbench %s' "$r" "$m" "$n" "$(tail -1 "$tmp/sysbench-$m-$n" | cut -d' ' -f1)")
			for io in $IO; do
				measure_pingpong "$m" "$n" "$io"
				line+=$(printf ', pingpong %s %s (ran %s)' "$io" "$(tail -1 "$tmp/pingpong-$io-$m-$n" | cut -d' ' -f1)" "$(cat "$tmp/ran-$io-$n")")
			done
			echo "$line tps"
		done
	done
done
echo
printf '%-6s %7s %-9s %-9s %12s %20s %10s %11s\n' mode threads tool ran "median tps" "client CPU us/query" "pp/sb tps" "round ratio"
for n in $THREADS; do
	for m in $MODES; do
		sb_tps=$(cut -d' ' -f1 "$tmp/sysbench-$m-$n" | median)
		sb_cpu=$(cut -d' ' -f2 "$tmp/sysbench-$m-$n" | median)
		printf '%-6s %7s %-9s %-9s %12.2f %20.2f\n' "$m" "$n" sysbench - "$sb_tps" "$sb_cpu"
		for io in $IO; do
			pp_tps=$(cut -d' ' -f1 "$tmp/pingpong-$io-$m-$n" | median)
			pp_cpu=$(cut -d' ' -f2 "$tmp/pingpong-$io-$m-$n" | median)
			# Round by round: each pingpong run over the sysbench run just
			# before it, so that a round the machine slowed counts once.
			rr=$(paste -d' ' <(cut -d' ' -f1 "$tmp/pingpong-$io-$m-$n") <(cut -d' ' -f1 "$tmp/sysbench-$m-$n") |
				awk '{printf "%.4f\n", $1/$2}' | median)
			awk -v m="$m" -v n="$n" -v tool="pp-$io" -v ran="$(cat "$tmp/ran-$io-$n")" -v t="$pp_tps" -v c="$pp_cpu" -v s="$sb_tps" -v rr="$rr" \
				'BEGIN{printf "%-6s %7s %-9s %-9s %12.2f %20.2f %10.3f %11.3f\n", m, n, tool, ran, t, c, t/s, rr}'
		done
	done
done
echo "(ps: prepared statements, sysbench --db-ps-mode=auto / pingpong --ps; text: --db-ps-mode=disable / --ps=false)"
echo "pp/sb tps: median over median; round ratio: the median of each round's pingpong/sysbench"
echo "Done when: pp-default/sb tps >= 1.0 in every row, placement $PLACEMENT (run PLACEMENT=none and packed)"
