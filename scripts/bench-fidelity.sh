#!/usr/bin/env bash
# make bench-fidelity: is pingpong's round trip the kernel's, not its own,
# and is it as light a MySQL client as sysbench?
#
# FIDELITY (default "echo mysql") names the parts run: echo (sockperf
# against pingpong, below) and mysql (pingpong against sysbench on a real
# MariaDB, after the echo part's description). With their default sizes
# each part takes a few minutes; FIDELITY=mysql runs the second alone.
#
# Fidelity: sockperf (the C reference) against its own server, and pingpong
# against pongd with their default flags (no --io: auto, as a user runs
# them) and in each --io model, on the same loopback, 64-byte messages, one
# thread, in interleaved rounds (sockperf, default, blocking, netpoll, spin,
# sockperf, ...). sockperf prints HALF the round trip: it is doubled here,
# so every figure below is a full round trip in microseconds. The target is
# pingpong's median p50 <= 1.05 x sockperf's, with default flags.
#
# Overhead: heap allocations per 1,000 round trips, client and responder in
# one process, per I/O model (go test), target <= 1.
#
# BIN (default bin) holds the binaries; ROUNDS (default 9) and SECS (default
# 2) size the run: on a small shared machine one round varies by a third
# (placement, neighbours), so many short interleaved rounds and their
# medians say more than a few long ones.
# PLACEMENT pins every process with taskset, the same placement for sockperf
# and hoplat (unpinned figures on a VM are placement luck): packed (default)
# puts clients and servers on CPU 0, so a round trip is kernel path and
# context switches only; spread puts clients on CPU 0 and servers on CPU 1,
# so every message pays a cross-CPU wake-up; none leaves placement to the
# scheduler (marked so in the output). PIN=1 is spread, as it was.
#
# MySQL: a real MariaDB from a temporary datadir (TMPROOT, default /dev/shm
# where it exists, so that the oltp mix's writes meet no disk) with
# sysbench's table (1 table, 10,000 rows). sysbench and pingpong take turns
# in interleaved rounds (MYSQL_ROUNDS, default 7, of MYSQL_SECS, default 1,
# per run: on a shared machine short adjacent pairs see the same neighbours;
# sysbench first in odd rounds, pingpong first in even ones) over the
# comparisons of issue #49, every process unpinned (as a user runs them,
# whatever PLACEMENT says):
#   ps-1-like  point select, 1 thread, prepared, like for like: pingpong
#              --io blocking, one OS thread blocking in the kernel per
#              connection as sysbench's thread does
#   ps-1       the same with pingpong's default flags (no --io)
#   text-1     point select, 1 thread, text (--db-ps-mode=disable / --ps=false)
#   ps-16      point select, 16 threads, prepared
#   text-16    point select, 16 threads, text
#   oltp-rw    sysbench oltp_read_write / pingpong --command oltp-rw, 1
#              thread, prepared (each client's default)
# Ids are uniform for both (sysbench --rand-type=uniform, as pingpong draws
# them). Per row: median tps of each, the median of the per-round ratios
# pingpong/sysbench (target >= 1.0) and each client's CPU (user+sys,
# /usr/bin/time) per query.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
ROUNDS=${ROUNDS:-9}
SECS=${SECS:-2}
SIZE=64
client=()
server=()
PLACEMENT=${PLACEMENT:-packed}
[ "${PIN:-0}" = 1 ] && PLACEMENT=spread
case "$PLACEMENT" in
packed) client=(taskset -c 0) server=(taskset -c 0) ;;
spread) client=(taskset -c 0) server=(taskset -c 1) ;;
none) ;;
*) echo "bench-fidelity: PLACEMENT=$PLACEMENT: want packed, spread or none" >&2; exit 2 ;;
esac
if [ "$PLACEMENT" != none ]; then
	command -v taskset >/dev/null || { echo "bench-fidelity: PLACEMENT=$PLACEMENT needs taskset" >&2; exit 1; }
fi
FIDELITY=${FIDELITY:-echo mysql}
MYSQL_ROUNDS=${MYSQL_ROUNDS:-7}
MYSQL_SECS=${MYSQL_SECS:-1}
want() { [[ " $FIDELITY " == *" $1 "* ]]; }
for part in $FIDELITY; do
	case "$part" in
	echo | mysql) ;;
	*) echo "bench-fidelity: FIDELITY=$FIDELITY: want echo, mysql or both" >&2; exit 2 ;;
	esac
done
for b in pingpong pongd; do
	[ -x "$BIN/$b" ] || { echo "bench-fidelity: $BIN/$b missing (make build)" >&2; exit 1; }
done
ME=bench-fidelity
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
if want echo && ! command -v sockperf >/dev/null; then
	echo "bench-fidelity: sockperf not installed (make deps): no reference to compare with" >&2
	exit 1
fi
if want mysql; then
	for p in mariadbd mariadb-install-db mariadb sysbench; do
		[ -n "$(find_prog "$p")" ] || { echo "bench-fidelity: $p not installed (make deps)" >&2; exit 1; }
	done
	[ -x /usr/bin/time ] || { echo "bench-fidelity: /usr/bin/time missing (apt-get install time)" >&2; exit 1; }
fi

# A short directory: MariaDB's socket path must fit sun_path's 108 bytes.
root=${TMPROOT:-/tmp}
[ -z "${TMPROOT:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ] && root=/dev/shm
tmp=$(mktemp -d "$root/hoplat-fidelity.XXXXXX")
trap cleanup EXIT

# The start_ functions run in this shell, never in $(...): a server started
# in a subshell would escape the cleanup's list. Each sets $addr.
addr=

# pongd prints "listening ADDR" once bound; wait for that line.
start_pongd() { # name io ("default": no --io flag)
	local out="$tmp/pongd-$1.out" io=(--io "$2")
	[ "$2" = default ] && io=()
	"${server[@]}" "$BIN/pongd" --listen tcp:127.0.0.1:0 "${io[@]}" >"$out" 2>"$tmp/pongd-$1.err" &
	pids+=($!)
	addr=$(wait_line "$out" "${pids[-1]}") && return
	echo "bench-fidelity: pongd --io $2 did not start: $(cat "$tmp/pongd-$1.err")" >&2
	exit 1
}

# sockperf takes a fixed port: launch finds a free one and waits until it
# listens.
start_sockperf() {
	if launch sockperf-server "${server[@]}" sockperf server --tcp -i 127.0.0.1 -p {PORT}; then
		addr=${PORT[sockperf-server]}
		return
	fi
	echo "bench-fidelity: sockperf server did not start: $(cat "$tmp/sockperf-server.log")" >&2
	exit 1
}

# csv_field FILE NAME: the first data row's column NAME of pingpong's CSV.
csv_field() {
	awk -F, -v name="$2" 'NR==1{for(i=1;i<=NF;i++) if($i==name) c=i; next} c{print $c; exit}' "$1"
}

run_pingpong() { # target io ("default": no --io flag) -> p50 round trip in us
	local out="$tmp/pp.csv" io=(--io "$2")
	[ "$2" = default ] && io=()
	if ! "${client[@]}" "$BIN/pingpong" --target "$1" "${io[@]}" --size $SIZE --time "${SECS}s" --format csv >"$out" 2>"$tmp/pp.err"; then
		echo "bench-fidelity: pingpong --io $2 failed: $(cat "$tmp/pp.err")" >&2
		exit 1
	fi
	csv_field "$out" p50_us
}

run_sockperf() { # port -> p50 round trip in us (sockperf's half, doubled)
	local half
	"${client[@]}" sockperf ping-pong --tcp -i 127.0.0.1 -p "$1" -m $SIZE -t "$SECS" >"$tmp/sockperf.out" 2>&1 || true
	half=$(awk '/percentile 50.000 =/{print $NF}' "$tmp/sockperf.out")
	[ -n "$half" ] || { echo "bench-fidelity: sockperf ping-pong printed no p50:" >&2; cat "$tmp/sockperf.out" >&2; exit 1; }
	awk -v h="$half" 'BEGIN{printf "%.3f\n", 2*h}'
}

median() { sort -g | awk '{v[NR]=$1} END{if(NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

machine_line() {
	local gov
	gov=$(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo unknown)
	echo "  machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs, cpuidle $gov (driver $(cat /sys/devices/system/cpu/cpuidle/current_driver 2>/dev/null || echo unknown)), $(date -u '+%Y-%m-%d %H:%M UTC')"
}

fidelity_echo() {
	start_sockperf
	sp_port=$addr
	start_pongd default default
	t_default=$addr
	start_pongd blocking blocking
	t_blocking=$addr
	start_pongd netpoll netpoll
	t_netpoll=$addr
	start_pongd spin spin
	t_spin=$addr

	case "$PLACEMENT" in
	packed) pinning="placement packed: clients and servers on CPU 0 (taskset)" ;;
	spread) pinning="placement spread: clients on CPU 0, servers on CPU 1 (taskset)" ;;
	none) pinning="placement none: UNPINNED, figures are placement luck" ;;
	esac
	echo "bench-fidelity: $ROUNDS interleaved rounds x ${SECS}s, $SIZE-byte messages, 1 thread, TCP loopback, $pinning"
	machine_line
	echo "(round trip p50 in us; sockperf prints half the round trip, doubled here; pp-default: pingpong and pongd without --io)"
	printf '%-6s %10s %11s %12s %10s %10s\n' round sockperf pp-default pp-blocking pp-netpoll pp-spin
	: >"$tmp/sp" >"$tmp/df" >"$tmp/bl" >"$tmp/np" >"$tmp/sn" >"$tmp/ratio" >"$tmp/dratio"
	for r in $(seq "$ROUNDS"); do
		sp=$(run_sockperf "$sp_port")
		df=$(run_pingpong "$t_default" default)
		bl=$(run_pingpong "$t_blocking" blocking)
		np=$(run_pingpong "$t_netpoll" netpoll)
		# Two spinners on one CPU only take turns at the scheduler's tick:
		# packed, the spin model measures time slices, not a round trip.
		if [ "$PLACEMENT" = packed ]; then
			sn=n/a
		else
			sn=$(run_pingpong "$t_spin" spin)
			echo "$sn" >>"$tmp/sn"
		fi
		echo "$sp" >>"$tmp/sp"; echo "$df" >>"$tmp/df"; echo "$bl" >>"$tmp/bl"; echo "$np" >>"$tmp/np"
		awk -v a="$bl" -v b="$sp" 'BEGIN{printf "%.4f\n", a/b}' >>"$tmp/ratio"
		awk -v a="$df" -v b="$sp" 'BEGIN{printf "%.4f\n", a/b}' >>"$tmp/dratio"
		printf '%-6s %10s %11s %12s %10s %10s\n' "$r" "$sp" "$df" "$bl" "$np" "$sn"
	done
	m_sp=$(median <"$tmp/sp"); m_df=$(median <"$tmp/df"); m_bl=$(median <"$tmp/bl"); m_np=$(median <"$tmp/np")
	m_sn=n/a
	[ -s "$tmp/sn" ] && m_sn=$(median <"$tmp/sn")
	printf '%-6s %10s %11s %12s %10s %10s\n' median "$m_sp" "$m_df" "$m_bl" "$m_np" "$m_sn"
	dratio=$(awk -v a="$m_df" -v b="$m_sp" 'BEGIN{printf "%.3f", a/b}')
	drratio=$(median <"$tmp/dratio")
	dverdict=$(awk -v r="$dratio" 'BEGIN{print (r <= 1.05) ? "within" : "OVER"}')
	ratio=$(awk -v a="$m_bl" -v b="$m_sp" 'BEGIN{printf "%.3f", a/b}')
	rratio=$(median <"$tmp/ratio")
	echo
	echo "fidelity: pingpong (default flags) / sockperf p50 round trip = $dratio (median of per-round ratios $drratio); target <= 1.05: $dverdict ($pinning)"
	echo "          pingpong --io blocking / sockperf = $ratio (median of per-round ratios $rratio)"
	if [ "$m_sn" = n/a ]; then
		# awk would read "n/a" as 0 and print a ratio of 0.000.
		awk -v n="$m_np" -v b="$m_sp" 'BEGIN{printf "          netpoll / sockperf = %.3f, spin / sockperf = n/a (packed: spin not run, two spinners on one CPU measure time slices)\n", n/b}'
	else
		awk -v n="$m_np" -v s="$m_sn" -v b="$m_sp" 'BEGIN{printf "          netpoll / sockperf = %.3f, spin / sockperf = %.3f\n", n/b, s/b}'
	fi

	echo
	echo "overhead: heap allocations per round trip, client and responder in one process (target <= 1 per 1,000):"
	go test -count=1 -run '^TestAllocsPerRoundTrip$' -v ./pingpong/ 2>&1 |
		awk '/allocations in/{sub(/^.*alloc_test.go:[0-9]+: /,""); n=$3; t=$6; printf "    %-16s %s allocations in %s round trips = %.3f per 1,000\n", $1" "$2, n, t, 1000*n/t} /^(--- FAIL|FAIL)/{print}'
}

# The MySQL part's rows: name, sysbench workload and statement mode,
# threads, pingpong's command and extra flags.
MYSQL_ROWS=(
	"ps-1-like oltp_point_select ps 1 point-select --io blocking"
	"ps-1 oltp_point_select ps 1 point-select"
	"text-1 oltp_point_select text 1 point-select"
	"ps-16 oltp_point_select ps 16 point-select"
	"text-16 oltp_point_select text 16 point-select"
	"oltp-rw oltp_read_write ps 1 oltp-rw"
)

# Each mysql_ run appends "tps cpu_us_per_query" to $tmp/my-TOOL-ROW.
mysql_sysbench() { # row workload mode threads
	local ps=auto out=$tmp/sb.out tps queries
	[ "$3" = text ] && ps=disable
	/usr/bin/time -f '%U %S' -o "$tmp/cpu" sysbench "$2" "${sb_args[@]}" --threads="$4" \
		--time="$MYSQL_SECS" --db-ps-mode="$ps" run >"$out" 2>&1 ||
		{ echo "bench-fidelity: sysbench $2 failed: $(tail -5 "$out")" >&2; exit 1; }
	tps=$(awk '/transactions:/{gsub(/[(]/,"",$3); print $3; exit}' "$out")
	queries=$(awk '/queries:/{print $2; exit}' "$out")
	awk -v q="$queries" -v t="$tps" '{printf "%s %.3f\n", t, ($1+$2)*1e6/q}' "$tmp/cpu" >>"$tmp/my-sb-$1"
}

mysql_pingpong() { # row mode threads command [flag...]
	local row=$1 ps=true n=$3 cmd=$4 out=$tmp/pp.json
	[ "$2" = text ] && ps=false
	shift 4
	# The password travels in MYSQL_PWD, out of the argument list.
	MYSQL_PWD=sbtest /usr/bin/time -f '%U %S' -o "$tmp/cpu" "$BIN/pingpong" --proto mysql --target "tcp:127.0.0.1:$db_port" \
		--user sbtest --db sbtest --command "$cmd" --table-size 10000 --ps="$ps" --threads "$n" \
		--time "${MYSQL_SECS}s" "$@" --format json >"$out" 2>"$tmp/pp.err" ||
		{ echo "bench-fidelity: pingpong --command $cmd failed: $(cat "$tmp/pp.err")" >&2; exit 1; }
	# The first result's transactions, queries and elapsed_s; the I/O
	# model auto chose and why, once per row.
	awk -v cpu="$(cat "$tmp/cpu")" -v why="$tmp/why-$row" '
		function val(l) { sub(/^[^:]*: */, "", l); gsub(/^"|",?$|,$/, "", l); return l }
		/"io_chosen":/ { m = val($0) } /"io_reason":/ { r = val($0) }
		/"transactions":/ && !t { t = val($0) } /"queries":/ && !q { q = val($0) }
		/"elapsed_s":/ && !e { e = val($0) }
		END { split(cpu, c, " "); printf "%.1f %.3f\n", t/e, (c[1]+c[2])*1e6/q; print m ": " r > why }' "$out" >>"$tmp/my-pp-$row"
}

fidelity_mysql() {
	local port r row name wl mode n cmd extra sb pp line
	PIN_DB=()
	port=$(free_port)
	mariadb_start "$port"
	mariadb_sbtest
	db_port=$port
	sb_args=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$port" --mysql-user=sbtest --mysql-password=sbtest
		--mysql-db=sbtest --tables=1 --table-size=10000 --rand-type=uniform --mysql-ignore-errors=1213,1020,1205,1047)
	sysbench oltp_read_only "${sb_args[@]}" prepare >"$tmp/prepare.log" 2>&1 ||
		{ echo "bench-fidelity: sysbench prepare failed: $(tail -5 "$tmp/prepare.log")" >&2; exit 1; }
	echo "bench-fidelity mysql: pingpong against sysbench, MariaDB $(mariadb --no-defaults -uroot --socket="$tmp/mysqld.sock" -N -e 'select version()') over TCP loopback, table of 10,000 rows, UNPINNED"
	machine_line
	echo "  $MYSQL_ROUNDS interleaved rounds x ${MYSQL_SECS}s per run (row by row, sysbench first in odd rounds, pingpong first in even); tps pingpong/sysbench per run"
	for r in $(seq "$MYSQL_ROUNDS"); do
		line="round $r:"
		for row in "${MYSQL_ROWS[@]}"; do
			read -r name wl mode n cmd extra <<<"$row"
			# Odd rounds run sysbench first, even rounds pingpong: a
			# machine that drifts within a round favours neither.
			# shellcheck disable=SC2086 # extra is flags, split on purpose
			if ((r % 2)); then
				mysql_sysbench "$name" "$wl" "$mode" "$n"
				mysql_pingpong "$name" "$mode" "$n" "$cmd" $extra
			else
				mysql_pingpong "$name" "$mode" "$n" "$cmd" $extra
				mysql_sysbench "$name" "$wl" "$mode" "$n"
			fi
			sb=$(tail -1 "$tmp/my-sb-$name" | cut -d' ' -f1)
			pp=$(tail -1 "$tmp/my-pp-$name" | cut -d' ' -f1)
			line+=$(printf ' %s %s/%s' "$name" "$pp" "$sb")
		done
		echo "$line"
	done
	echo
	printf '%-10s %12s %12s %9s %11s %8s %8s  %s\n' row "sb tps" "pp tps" "pp/sb" "round pp/sb" "sb us/q" "pp us/q" verdict
	for row in "${MYSQL_ROWS[@]}"; do
		read -r name _ <<<"$row"
		local sbt ppt sbc ppc rr
		sbt=$(cut -d' ' -f1 "$tmp/my-sb-$name" | median)
		ppt=$(cut -d' ' -f1 "$tmp/my-pp-$name" | median)
		sbc=$(cut -d' ' -f2 "$tmp/my-sb-$name" | median)
		ppc=$(cut -d' ' -f2 "$tmp/my-pp-$name" | median)
		# Round by round: each pingpong run over the sysbench run of its
		# round, so that a round the machine slowed counts once.
		rr=$(paste -d' ' <(cut -d' ' -f1 "$tmp/my-pp-$name") <(cut -d' ' -f1 "$tmp/my-sb-$name") |
			awk '{printf "%.4f\n", $1/$2}' | median)
		awk -v n="$name" -v s="$sbt" -v p="$ppt" -v sc="$sbc" -v pc="$ppc" -v rr="$rr" \
			'BEGIN{printf "%-10s %12.1f %12.1f %9.3f %11.3f %8.1f %8.1f  %s\n", n, s, p, p/s, rr, sc, pc, (rr >= 1.0) ? "met" : "BELOW"}'
	done
	for row in "${MYSQL_ROWS[@]}"; do
		read -r name _ <<<"$row"
		echo "  pingpong $name ran $(cat "$tmp/why-$name")"
	done
	echo "(tps: median over rounds; round pp/sb: the median of each round's pingpong/sysbench, target >= 1.0;"
	echo " us/q: the client's user+sys CPU per query, median; ps-1-like: pingpong --io blocking, the rest pingpong's default flags)"
}

if want echo; then
	fidelity_echo
fi
if want mysql; then
	want echo && echo
	fidelity_mysql
fi
