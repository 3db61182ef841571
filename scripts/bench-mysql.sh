#!/usr/bin/env bash
# make bench-mysql: is pingpong --proto mysql as fast a MySQL client as
# sysbench, and cheaper per query?
#
# A real MariaDB from a temporary datadir (free port, temp socket) gets
# sysbench's table (1 table, TABLE_SIZE rows); then sysbench
# oltp_point_select and pingpong --command point-select, one thread each,
# take turns in interleaved rounds (sysbench, pingpong, sysbench, ...), in
# each statement mode: prepared (sysbench's default --db-ps-mode=auto,
# pingpong's --ps) and text (--db-ps-mode=disable, --ps=false). Per tool it
# prints the median tps over the rounds, pingpong/sysbench (target >= 1.0),
# and the client's own CPU per query: the process's user+sys time
# (/usr/bin/time) over the queries it ran.
#
# ROUNDS (default 5), SECS (default 5), TABLE_SIZE (default 10000),
# TRANSPORT (tcp or unix, default tcp), MODES (default "ps text"), IO
# (pingpong's --io, default blocking: libmariadb under sysbench blocks in
# read(2) on its thread too, so that is the like-for-like model).
# PLACEMENT pins every process with taskset (unpinned figures on a VM are
# placement luck): packed (default) puts MariaDB and the client on CPU 0,
# spread puts MariaDB on CPU 1 and the client on CPU 0.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-5}
TABLE_SIZE=${TABLE_SIZE:-10000}
TRANSPORT=${TRANSPORT:-tcp}
MODES=${MODES:-ps text}
IO=${IO:-blocking}
PLACEMENT=${PLACEMENT:-packed}
case "$PLACEMENT" in
packed) CPU_DB=0 ;;
spread) CPU_DB=1 ;;
*) echo "bench-mysql: PLACEMENT=$PLACEMENT: want packed or spread" >&2; exit 2 ;;
esac
PIN_DB=(taskset -c "$CPU_DB")
PIN_CLIENT=(taskset -c 0)

[ -x bin/pingpong ] || { echo "bench-mysql: bin/pingpong missing (make build)" >&2; exit 1; }
ME=bench-mysql
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
mariadbd=$(find_prog mariadbd)
for p in mariadbd mariadb-install-db mariadb sysbench; do
	[ -n "$(find_prog "$p")" ] || { echo "bench-mysql: $p not installed (make deps)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "bench-mysql: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }

# A short directory: the socket path must fit sun_path's 108 bytes.
tmp=$(mktemp -d /tmp/hoplat-bench-mysql.XXXXXX)
trap cleanup EXIT

port=$(free_port)
sock=$tmp/mysqld.sock
mariadb_install
# Started in this shell, not in $(...), so that cleanup knows its PID.
# shellcheck disable=SC2046 # mariadbd_opts prints several options
"${PIN_DB[@]}" "$mariadbd" $(mariadbd_opts "$port" 127.0.0.1) >"$tmp/mariadbd.out" 2>&1 &
pids+=($!)
mariadb_wait "${pids[-1]}"
root=(mariadb --no-defaults -uroot --socket="$sock")
"${root[@]}" -e "CREATE DATABASE sbtest;
CREATE USER 'sbtest'@'%' IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO 'sbtest'@'%';
CREATE USER 'sbtest'@'localhost' IDENTIFIED BY 'sbtest'; GRANT ALL ON *.* TO 'sbtest'@'localhost';"

if [ "$TRANSPORT" = unix ]; then
	sb_via=(--mysql-socket="$sock")
	target=unix:$sock
else
	sb_via=(--mysql-host=127.0.0.1 --mysql-port="$port")
	target=tcp:127.0.0.1:$port
fi
sb_args=(--db-driver=mysql "${sb_via[@]}" --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest
	--tables=1 --table-size="$TABLE_SIZE")
sysbench oltp_read_only "${sb_args[@]}" prepare >"$tmp/prepare.log" 2>&1 ||
	{ echo "bench-mysql: sysbench prepare failed: $(tail -5 "$tmp/prepare.log")" >&2; exit 1; }

median() { sort -g | awk '{v[NR]=$1} END{if(NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

# Each measure appends "tps cpu_us_per_query" to $tmp/TOOL-MODE.
measure_sysbench() { # mode
	local ps=auto out=$tmp/sb.out
	[ "$1" = text ] && ps=disable
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" "${PIN_CLIENT[@]}" sysbench oltp_point_select "${sb_args[@]}" --threads=1 \
		--time="$SECS" --db-ps-mode="$ps" run >"$out" 2>&1 ||
		{ echo "bench-mysql: sysbench run failed: $(tail -5 "$out")" >&2; exit 1; }
	local tps queries errs
	tps=$(awk '/transactions:/{gsub(/[(]/,"",$3); print $3; exit}' "$out")
	queries=$(awk '/queries:/{print $2; exit}' "$out")
	errs=$(awk '/ignored errors:/{print $3; exit}' "$out")
	[ "$errs" = 0 ] || { echo "bench-mysql: sysbench counted $errs errors" >&2; exit 1; }
	awk -v q="$queries" -v t="$tps" '{printf "%s %.3f\n", t, ($1+$2)*1e6/q}' "$tmp/cpu" >>"$tmp/sysbench-$1"
}

measure_pingpong() { # mode
	local ps=true out=$tmp/pp.csv
	[ "$1" = text ] && ps=false
	# The password travels in MYSQL_PWD, out of the argument list.
	MYSQL_PWD=sbtest /usr/bin/time -f '%U %S' -o "$tmp/cpu" "${PIN_CLIENT[@]}" bin/pingpong --proto mysql --target "$target" \
		--user sbtest --db sbtest --command point-select --table-size "$TABLE_SIZE" --ps="$ps" \
		--io "$IO" --threads 1 --time "${SECS}s" \
		--format csv >"$out" 2>"$tmp/pp.err" ||
		{ echo "bench-mysql: pingpong failed: $(cat "$tmp/pp.err")" >&2; exit 1; }
	# CSV columns: threads,run,discarded,outlier,elapsed_s,events,tps,queries,errors,...
	awk -F, -v cpu="$(cat "$tmp/cpu")" 'NR==2{split(cpu,c," "); printf "%s %.3f\n", $7, (c[1]+c[2])*1e6/$8}' "$out" >>"$tmp/pingpong-$1"
}

echo "bench-mysql: MariaDB $("${root[@]}" -N -e 'select version()') over $TRANSPORT, oltp_point_select, table-size $TABLE_SIZE, 1 thread, pingpong --io $IO; placement $PLACEMENT: client on CPU 0, MariaDB on CPU $CPU_DB (taskset)"
echo "  $ROUNDS interleaved rounds x ${SECS}s per tool and statement mode"
for r in $(seq "$ROUNDS"); do
	for m in $MODES; do
		measure_sysbench "$m"
		measure_pingpong "$m"
		printf 'round %d %-4s: sysbench %s tps, pingpong %s tps\n' "$r" "$m" \
			"$(tail -1 "$tmp/sysbench-$m" | cut -d' ' -f1)" "$(tail -1 "$tmp/pingpong-$m" | cut -d' ' -f1)"
	done
done
echo
printf '%-6s %-10s %14s %20s %10s\n' mode tool "median tps" "client CPU us/query" "pp/sb tps"
for m in $MODES; do
	sb_tps=$(cut -d' ' -f1 "$tmp/sysbench-$m" | median)
	pp_tps=$(cut -d' ' -f1 "$tmp/pingpong-$m" | median)
	sb_cpu=$(cut -d' ' -f2 "$tmp/sysbench-$m" | median)
	pp_cpu=$(cut -d' ' -f2 "$tmp/pingpong-$m" | median)
	printf '%-6s %-10s %14.2f %20.2f\n' "$m" sysbench "$sb_tps" "$sb_cpu"
	awk -v m="$m" -v t="$pp_tps" -v c="$pp_cpu" -v s="$sb_tps" 'BEGIN{printf "%-6s %-10s %14.2f %20.2f %10.3f\n", m, "pingpong", t, c, t/s}'
done
echo "(ps: prepared statements, sysbench --db-ps-mode=auto / pingpong --ps; text: --db-ps-mode=disable / --ps=false)"
