#!/usr/bin/env bash
# make bench-seed: the MXS-1515 experiment on this machine. What does one
# proxy hop cost a short-query database workload: a byte relay (hoprelay's
# engines, socat with the seeds' exact lines, HAProxy in mode tcp, 1 thread)
# and a protocol-aware one (hoprelay --route: conn, readconnroute's job; rw,
# readwritesplit's), with the client leg on TCP and on a UNIX socket?
#
# A real MariaDB primary from a temporary datadir, with one replica on
# asynchronous replication (binary log in row format, GTID), gets
# sysbench's table (1 table, TABLE_SIZE rows) on the primary; sysbench
# oltp_read_only and oltp_point_select, 1 thread, run against the primary
# directly and through every relay, in interleaved rounds (every path once
# per round, round after round), and the table shows medians over the
# rounds. The rows, per leg: direct; the byte relay (each engine of
# ENGINES); conn and rw with the primary alone (as the seeds ran
# readwritesplit, with one server); rw with primary and replica; socat;
# HAProxy. Where bin/hoprelay has no --route, its rows say so. Each row:
#   tps            transactions per second, and its ratio to direct
#                  (the seeds' published ratios beside, for the router rows);
#   +p50, +p99     the added latency per statement, in microseconds: the
#                  row's transaction latency quantile (sysbench's
#                  --histogram, buckets about 2% apart) less direct's, over
#                  the statements per transaction (1 for point_select, 16
#                  for read_only with its BEGIN and COMMIT);
#   relay CPU/txn  the relay's utime+stime (+ its reaped children's, for
#                  socat's fork) from /proc/PID/stat before and after a timed
#                  run, over the transactions of that run (median of rounds);
#   sys/msg        system calls per relayed message, from strace -c -f -p
#                  over a separate counted pass of STRACE_EVENTS transactions
#                  (strace slows every call it sees, so it never runs during
#                  the timed rounds); a message is one statement or one
#                  reply, 2 x the queries sysbench counted;
#   rt/msg         of those, futex + nanosleep + sched_yield: the Go
#                  runtime's hand-offs (zero for a C relay).
# Every process is pinned with taskset: PLACEMENT=packed (default) puts
# MariaDB (both servers), the relay and sysbench all on CPU 0, where a hop
# costs kernel path and context switches only; PLACEMENT=spread puts MariaDB
# on CPU 1 and the client and relay on CPU 0 (the seeds' database on another
# host), where every message also pays a cross-CPU wake-up; PLACEMENT=none
# pins nothing and runs hoprelay with its default flags, the experiment as
# MXS-1515 published it (docs/hopbench.md) and a user runs it (the scheduler
# places every process; marked so in the output). Timing on a shared machine
# is noise unless rounds interleave; the counts are what to compare. The
# router's ratios are medians of per-round ratios (paired), the path order
# reversed every other round.
#
# Knobs: ROUNDS (5), SECS per timed run (1), TABLE_SIZE (10000),
# STRACE_EVENTS (300 oltp_read_only transactions, 10x that of point_select),
# PLACEMENT (packed|spread|none), ENGINES (byte relays, "epoll"; any of
# goroutine epoll splice sockmap), ROUTES (router rows, "conn rw1 rw2"),
# LEGS ("tcp unix"), WORKLOADS ("oltp_read_only oltp_point_select"),
# BIN (bin). Defaults run in about 5 minutes; e.g. ROUNDS=9 SECS=10 for a
# quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-1}
TABLE_SIZE=${TABLE_SIZE:-10000}
STRACE_EVENTS=${STRACE_EVENTS:-300}
PLACEMENT=${PLACEMENT:-packed}
read -r -a ENGINES <<<"${ENGINES:-epoll}"
read -r -a ROUTES <<<"${ROUTES:-conn rw1 rw2}"
read -r -a LEGS <<<"${LEGS:-tcp unix}"
read -r -a WORKLOADS <<<"${WORKLOADS:-oltp_read_only oltp_point_select}"

case $PLACEMENT in
packed) PIN_DB=(taskset -c 0) PIN_RELAY=(taskset -c 0) PIN_CLIENT=(taskset -c 0)
	where="mariadbd, relay and sysbench on CPU 0 (taskset -c)" ;;
spread) PIN_DB=(taskset -c 1) PIN_RELAY=(taskset -c 0) PIN_CLIENT=(taskset -c 0)
	where="mariadbd on CPU 1, relay and sysbench on CPU 0 (taskset -c)" ;;
none) PIN_DB=() PIN_RELAY=() PIN_CLIENT=()
	where="UNPINNED, every process placed by the scheduler" ;;
*) echo "bench-seed: PLACEMENT=$PLACEMENT: want packed, spread or none" >&2; exit 2 ;;
esac

ME=bench-seed
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
for p in mariadbd mariadb-install-db mariadb sysbench socat haproxy strace taskset; do
	[ -n "$(find_prog "$p")" ] || { echo "bench-seed: $p not installed (make deps)" >&2; exit 1; }
done
[ -x "$BIN/hoprelay" ] || { echo "bench-seed: $BIN/hoprelay missing (run via make bench-seed)" >&2; exit 1; }
HAPROXY=$(find_prog haproxy)
if [ "$PLACEMENT" = spread ] && [ "$(nproc)" -lt 2 ]; then
	echo "bench-seed: PLACEMENT=spread needs 2 CPUs, this machine has $(nproc)" >&2
	exit 1
fi

# A short directory: socket paths must fit sun_path's 108 bytes.
tmp=$(mktemp -d /tmp/hoplat-seed.XXXXXX)
trap cleanup EXIT INT TERM

# --- MariaDB: a primary and its replica -------------------------------------
DBPORT=$(free_port)
REPLPORT=$(free_port)
DBSOCK=$tmp/mysqld.sock
mariadb_pair "$DBPORT" "$REPLPORT"
mariadb_sbtest
root=(mariadb --no-defaults -uroot --socket="$DBSOCK")
sb_common=(--db-driver=mysql --mysql-user=sbtest --mysql-password=sbtest --mysql-db=sbtest
	--tables=1 --table-size="$TABLE_SIZE" --threads=1 --histogram=on)
sysbench oltp_read_only "${sb_common[@]}" --mysql-socket="$DBSOCK" prepare >"$tmp/prepare.log" 2>&1 ||
	{ echo "bench-seed: sysbench prepare failed: $(tail -5 "$tmp/prepare.log")" >&2; exit 1; }
mariadb_sync

# --- paths -----------------------------------------------------------------
# PATHS: names of the paths started; VIA[name]: sysbench's connection
# arguments; RPID[name]: the relay's PID (none for direct); NA[name]: why a
# row has no figures though it was asked for.
declare -A VIA RPID SKIP NA
PATHS=(direct-tcp direct-unix)
VIA[direct-tcp]="--mysql-host=127.0.0.1 --mysql-port=$DBPORT"
VIA[direct-unix]="--mysql-socket=$DBSOCK"
UP="TCP4:127.0.0.1:$DBPORT,nodelay"
REPL="TCP4:127.0.0.1:$REPLPORT,nodelay"

# start_relay NAME LEG ADDR CMD...: ADDR is the port or socket path the
# relay will listen on.
start_relay() {
	local name=$1 leg=$2 addr=$3 pid
	shift 3
	"${PIN_RELAY[@]}" "$@" >"$tmp/$name.log" 2>&1 &
	pid=$!
	pids+=("$pid")
	if ! wait_ready "$addr" "$pid"; then
		SKIP[$name]="did not start: $(head -c 300 "$tmp/$name.log" | tr '\n' ' ')"
		kill "$pid" 2>/dev/null || true
		return 1
	fi
	RPID[$name]=$pid
	if [ "$leg" = unix ]; then VIA[$name]="--mysql-socket=$addr"; else VIA[$name]="--mysql-host=127.0.0.1 --mysql-port=$addr"; fi
	PATHS+=("$name")
}

# The seed experiment's relay lines (MXS-1515, docs/hopbench.md), ports and paths fresh.
p=$(free_port)
start_relay socat-tcp tcp "$p" socat "TCP4-LISTEN:$p,reuseaddr,fork,nodelay" "$UP" || true
start_relay socat-unix unix "$tmp/socat.sock" socat "UNIX-LISTEN:$tmp/socat.sock,fork" "$UP" || true

p=$(free_port)
cat >"$tmp/haproxy.cfg" <<CFG
global
	nbthread 1
	maxconn 1000
defaults
	mode tcp
	timeout connect 5s
	timeout client 1h
	timeout server 1h
listen tcpleg
	bind 127.0.0.1:$p
	server db 127.0.0.1:$DBPORT
listen unixleg
	bind $tmp/haproxy.sock
	server db 127.0.0.1:$DBPORT
CFG
"${PIN_RELAY[@]}" "$HAPROXY" -db -f "$tmp/haproxy.cfg" >"$tmp/haproxy.log" 2>&1 &
hpid=$!
pids+=("$hpid")
if wait_ready "$p" "$hpid" && wait_ready "$tmp/haproxy.sock" "$hpid"; then
	RPID[haproxy-tcp]=$hpid RPID[haproxy-unix]=$hpid
	VIA[haproxy-tcp]="--mysql-host=127.0.0.1 --mysql-port=$p"
	VIA[haproxy-unix]="--mysql-socket=$tmp/haproxy.sock"
	PATHS+=(haproxy-tcp haproxy-unix)
else
	echo "bench-seed: haproxy did not start: $(cat "$tmp/haproxy.log")" >&2
	exit 1
fi

for eng in "${ENGINES[@]}"; do
	p=$(free_port)
	start_relay "$eng-tcp" tcp "$p" "$BIN/hoprelay" --engine "$eng" "TCP4-LISTEN:$p,reuseaddr,fork,nodelay" "$UP" || true
	start_relay "$eng-unix" unix "$tmp/$eng.sock" "$BIN/hoprelay" --engine "$eng" "UNIX-LISTEN:$tmp/$eng.sock,fork" "$UP" || true
done

# The router (hoprelay --route, on the epoll engine): conn and rw1 with the
# primary alone, rw2 with the primary and the replica. A hoprelay without
# the router refuses the flag; its rows then say so.
route_ok=$("$BIN/hoprelay" --route rw --user sbtest --password sbtest --help 2>&1 >/dev/null) && route_ok=yes
for rt in "${ROUTES[@]}"; do
	case $rt in
	conn) mode=conn ups=("$UP") ;;
	rw1) mode=rw ups=("$UP") ;;
	rw2) mode=rw ups=("$UP" "$REPL") ;;
	*) echo "bench-seed: ROUTES: $rt: want conn, rw1 or rw2" >&2; exit 2 ;;
	esac
	if [ "$route_ok" != yes ]; then
		why="n/a (hoprelay --route: ${route_ok%%$'\n'*})"
		NA[$rt-tcp]=$why NA[$rt-unix]=$why
		continue
	fi
	route=(--route "$mode" --engine epoll --user sbtest --password sbtest)
	p=$(free_port)
	start_relay "$rt-tcp" tcp "$p" "$BIN/hoprelay" "${route[@]}" "TCP4-LISTEN:$p,reuseaddr,fork,nodelay" "${ups[@]}" || true
	start_relay "$rt-unix" unix "$tmp/$rt.sock" "$BIN/hoprelay" "${route[@]}" "UNIX-LISTEN:$tmp/$rt.sock,fork" "${ups[@]}" || true
done

# ORDER: the table's rows, per leg (LEGS), asked for, started or not.
ORDER=()
for leg in "${LEGS[@]}"; do
	for kind in direct "${ENGINES[@]}" "${ROUTES[@]}" socat haproxy; do ORDER+=("$kind-$leg"); done
done

# sb WORKLOAD PATH ARGS...: one sysbench run through PATH; its output in
# $tmp/sb.out. A failed run (a relay that accepts and then breaks the
# session, an engine the kernel refuses) skips the path.
sb() {
	local w=$1 path=$2
	shift 2
	# shellcheck disable=SC2086 # VIA holds several arguments
	"${PIN_CLIENT[@]}" sysbench "$w" "${sb_common[@]}" ${VIA[$path]} "$@" run >"$tmp/sb.out" 2>&1 || return 1
	local errs
	errs=$(awk '/ignored errors:/{print $3; exit}' "$tmp/sb.out")
	[ "${errs:-1}" = 0 ]
}
tps_of() { awk '/transactions:/{gsub(/[(]/,"",$3); print $3; exit}' "$tmp/sb.out"; }
# quantiles_of: the p50 and p99 of the run's transaction latency, in ms,
# from sysbench's --histogram (rows "value |bar count", in increasing value).
quantiles_of() {
	awk '/Latency histogram/ { on = 1; next }
		on && /\|/ { split($0, a, "|"); v[++n] = a[1] + 0; c[n] = $NF + 0; total += $NF; next }
		on && n && !/\|/ { on = 0 }
		END {
			for (i = 1; i <= n; i++) {
				cum += c[i]
				if (p50 == "" && cum >= 0.50 * total) p50 = v[i]
				if (p99 == "" && cum >= 0.99 * total) p99 = v[i]
			}
			print (p50 == "" ? 0 : p50), (p99 == "" ? 0 : p99)
		}' "$tmp/sb.out"
}
txns_of() { awk '/transactions:/{print $2; exit}' "$tmp/sb.out"; }
queries_of() { awk '/^ *queries:/{print $2; exit}' "$tmp/sb.out"; }
# cpu_ticks PID: utime+stime+cutime+cstime (fields 14-17 of /proc/PID/stat;
# the command name, field 2, may hold spaces, so count from its ")").
cpu_ticks() { awk '{sub(/.*\) /, ""); print $12 + $13 + $14 + $15}' "/proc/$1/stat"; }
HZ=$(getconf CLK_TCK)

# A relay whose sessions fail (the first query through it) is skipped here,
# before the rounds, with the reason.
for path in "${PATHS[@]}"; do
	if ! sb oltp_point_select "$path" --events=20 --time=0; then
		SKIP[$path]="sysbench through it failed: $(grep -m1 -iE 'error|fatal' "$tmp/sb.out" || tail -1 "$tmp/sb.out")"
	fi
done
live=()
for path in "${ORDER[@]}"; do
	[ -n "${VIA[$path]:-}" ] && [ -z "${SKIP[$path]:-}" ] && live+=("$path")
done

echo "bench-seed: MariaDB $("${root[@]}" -N -e 'select version()'), sysbench ${WORKLOADS[*]}, 1 thread, table-size $TABLE_SIZE"
echo "  machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs; placement $PLACEMENT: $where"
echo "  replica: MariaDB on 127.0.0.1:$REPLPORT replicating the primary (row-format binary log, GTID), pinned as the primary"
echo "  hoprelay with default flags but --engine (and --route, on epoll, for the router); each said how its loops wait:"
for eng in "${ENGINES[@]}" "${ROUTES[@]}"; do
	for leg in "${LEGS[@]}"; do
		w=$(grep -m1 '^hoprelay: wake' "$tmp/$eng-$leg.log" 2>/dev/null || true)
		[ -z "$w" ] || echo "    $eng-$leg: ${w#hoprelay: }"
	done
done
echo "  $ROUNDS interleaved rounds x ${SECS}s per path and workload; medians; upstream leg TCP nodelay for every relay"

# --- timed rounds ----------------------------------------------------------
# $tmp/rounds: "workload path tps p50 p99 statements_per_txn relay_ms_per_txn"
# Odd rounds run the paths in table order, even rounds in reverse, so that
# a drift in the machine's speed across a round falls on every path alike.
rev=()
for ((i = ${#live[@]} - 1; i >= 0; i--)); do rev+=("${live[i]}"); done
for r in $(seq "$ROUNDS"); do
	order=("${live[@]}")
	[ $((r % 2)) = 0 ] && order=("${rev[@]}")
	for w in "${WORKLOADS[@]}"; do
		for path in "${order[@]}"; do
			pid=${RPID[$path]:-}
			[ -n "$pid" ] && c0=$(cpu_ticks "$pid")
			sb "$w" "$path" --time="$SECS" || { echo "bench-seed: sysbench $w via $path failed: $(tail -3 "$tmp/sb.out")" >&2; exit 1; }
			cpu=-
			if [ -n "$pid" ]; then
				sleep 0.1 # socat's child exits and is reaped after the client leaves
				c1=$(cpu_ticks "$pid")
				cpu=$(awk -v a="$c0" -v b="$c1" -v hz="$HZ" -v n="$(txns_of)" 'BEGIN{printf "%.4f", (b-a)*1000/hz/n}')
			fi
			echo "$w $path $(tps_of) $(quantiles_of) $(awk -v q="$(queries_of)" -v t="$(txns_of)" 'BEGIN{print t ? q / t : 1}') $cpu" >>"$tmp/rounds"
		done
	done
	echo "  round $r/$ROUNDS done" >&2
done

# --- counted pass (strace) -------------------------------------------------
# $tmp/counts: "workload path syscalls runtime messages"
for w in "${WORKLOADS[@]}"; do
	ev=$STRACE_EVENTS
	[ "$w" = oltp_point_select ] && ev=$((STRACE_EVENTS * 10))
	for path in "${live[@]}"; do
		pid=${RPID[$path]:-}
		[ -n "$pid" ] || continue
		strace -c -f -p "$pid" -o "$tmp/strace.out" 2>"$tmp/strace.err" &
		spid=$!
		pids+=("$spid")
		for i in $(seq 100); do grep -q attached "$tmp/strace.err" && break; sleep 0.05; done
		sb "$w" "$path" --events="$ev" --time=0 || { echo "bench-seed: counted sysbench via $path failed" >&2; exit 1; }
		sleep 0.1
		kill -INT "$spid" 2>/dev/null || true
		wait "$spid" 2>/dev/null || true
		awk -v w="$w" -v p="$path" -v q="$(queries_of)" '
			$NF == "total" { total = $4 }
			$NF == "futex" || $NF == "nanosleep" || $NF == "sched_yield" { rt += $4 }
			END { printf "%s %s %d %d %d\n", w, p, total, rt, 2 * q }' "$tmp/strace.out" >>"$tmp/counts"
	done
done

# --- table -----------------------------------------------------------------
# rows: "path label seed-ratios why-no-figures", tab-separated, in ORDER.
for path in "${ORDER[@]}"; do
	kind=${path%-*}
	case $kind in
	direct) label=direct seed= ;;
	conn) label="conn (router)" seed="0.65 / 0.57" ;;
	rw1) label="rw, primary only" seed="0.70 / 0.72" ;;
	rw2) label="rw, primary+replica" seed="0.70 / 0.72" ;;
	socat) label=socat seed= ;;
	haproxy) label=HAProxy seed= ;;
	*) label="bytes ($kind)" seed= ;;
	esac
	why=${NA[$path]:-}
	[ -n "$why" ] || [ -z "${SKIP[$path]:-}" ] || why="skipped (below)"
	[ -n "$why" ] || [ -n "${VIA[$path]:-}" ] || why="did not start (below)"
	printf '%s\t%s\t%s\t%s\n' "$path" "$label" "${seed:--}" "${why:--}"
done >"$tmp/rows"
echo
awk -F'\t' -v workloads="${WORKLOADS[*]}" -v legs="${LEGS[*]}" -v engines="${ENGINES[*]}" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# pr(A, B): the median over rounds of the tps of A over that of B in the
# same round (keys of tps[]): paired, so a round the whole machine ran slow
# or fast cancels out.
function pr(A, B,   i, m, r) {
	m = n[A] < n[B] ? n[A] : n[B]
	for (i = 1; i <= m; i++) r[i] = tps[A, i] / tps[B, i]
	return median(r, m)
}
FILENAME ~ /rows$/ { np++; P[np] = $1; label[$1] = $2; seed[$1] = $3; why[$1] = $4; next }
FILENAME ~ /rounds$/ { split($0, f, " "); k = f[1] SUBSEP f[2]; n[k]++
	tps[k, n[k]] = f[3]; p50[k, n[k]] = f[4]; p99[k, n[k]] = f[5]; spt[k, n[k]] = f[6]; cpu[k, n[k]] = f[7]; next }
{ split($0, f, " "); k = f[1] SUBSEP f[2]; sys[k] = f[5] ? f[3] / f[5] : 0; rt[k] = f[5] ? f[4] / f[5] : 0; counted[k] = 1 }
END {
	nw = split(workloads, W, " "); nl = split(legs, L, " ")
	for (x = 1; x <= nw; x++) {
		w = W[x]
		for (y = 1; y <= np; y++) {
			k = w SUBSEP P[y]
			if (!(k in n)) continue
			for (i = 1; i <= n[k]; i++) { a[i] = tps[k, i]; b[i] = p50[k, i]; c[i] = p99[k, i]; d[i] = spt[k, i]; e[i] = cpu[k, i] }
			mt[k] = median(a, n[k]); m50[k] = median(b, n[k]); m99[k] = median(c, n[k]); ms[k] = median(d, n[k])
			mc[k] = e[1] == "-" ? "-" : sprintf("%.3f ms", median(e, n[k]))
		}
		printf "%s, 1 thread\n%-26s %9s %7s %8s %8s %12s %14s %8s %8s\n", w, "path", "tps", "vs dir", "+p50 us", "+p99 us",
			"seed vs dir", "relay CPU/txn", "sys/msg", "rt/msg"
		for (z = 1; z <= nl; z++) {
			leg = L[z]; dk = w SUBSEP "direct-" leg
			for (y = 1; y <= np; y++) {
				p = P[y]; k = w SUBSEP p
				if (p !~ ("-" leg "$")) continue
				name = leg " " label[p]
				if (!(k in mt)) { printf "%-26s %-35s %12s\n", name, why[p] == "-" ? "no figures" : why[p], seed[p]; continue }
				dt = dk in mt ? mt[dk] : 0
				if (p ~ /^direct-/) { a50 = "-"; a99 = "-" }
				else if (dk in mt) {
					a50 = sprintf("%.1f", (m50[k] - m50[dk]) * 1000 / ms[k])
					a99 = sprintf("%.1f", (m99[k] - m99[dk]) * 1000 / ms[k])
				} else { a50 = "?"; a99 = "?" }
				printf "%-26s %9.2f %7.3f %8s %8s %12s %14s %8s %8s\n", name, mt[k], dt ? mt[k] / dt : 0, a50, a99,
					seed[p], mc[k], counted[k] ? sprintf("%.2f", sys[k]) : "-", counted[k] ? sprintf("%.3f", rt[k]) : "-"
			}
			if (dk in mt)
				printf "  %s direct: p50 %.3f ms, p99 %.3f ms per transaction; statements per transaction: %g\n", leg, m50[dk], m99[dk], ms[dk]
			# The byte relays against socat and HAProxy; the router against
			# the first byte relay (the issue: conn >= 0.95x, rw with one
			# backend >= 0.90x, both >= HAProxy).
			best = ""; peer = 0
			for (y = 1; y <= np; y++) {
				p = P[y]; k = w SUBSEP p
				if (!(k in mt) || p !~ ("-" leg "$")) continue
				if (p ~ /^(socat|haproxy)-/) { if (mt[k] > peer) peer = mt[k]; continue }
				if (p ~ /^(direct|conn|rw1|rw2)-/) continue
				if (best == "" || mt[k] > mt[w SUBSEP best]) best = p
			}
			if (best != "" && peer > 0)
				printf "  %s leg: best byte relay %s at %.3f x max(socat, haproxy) tps (target >= 1.0)\n", leg, best, mt[w SUBSEP best] / peer
			# The router ratios: medians of the paired ratios of the rounds.
			split(engines, E, " "); bk = w SUBSEP E[1] "-" leg; hk = w SUBSEP "haproxy-" leg
			ck = w SUBSEP "conn-" leg; rk = w SUBSEP "rw1-" leg
			line = ""
			if (ck in mt && bk in mt)
				line = line sprintf("conn %.3f x %s (target >= 0.95)", pr(ck, bk), E[1])
			if (rk in mt && bk in mt)
				line = line sprintf("%srw1 %.3f x %s (target >= 0.90)", line == "" ? "" : ", ", pr(rk, bk), E[1])
			if (line != "" && hk in mt) {
				line = line ", vs HAProxy:"
				if (ck in mt) line = line sprintf(" conn %.3f x", pr(ck, hk))
				if (rk in mt) line = line sprintf(" rw1 %.3f x", pr(rk, hk))
				line = line " (target >= 1.0)"
			}
			if (line != "") printf "  %s leg: router (median of per-round ratios) %s\n", leg, line
		}
		print ""
	}
}' "$tmp/rows" "$tmp/rounds" "$tmp/counts"
echo "+p50, +p99: added latency per statement, the row's transaction latency quantile less direct's (sysbench --histogram),"
echo "  over the statements per transaction; seed vs dir: MXS-1515's published oltp_read_only ratios to direct, two runs"
echo "  (readconnroute 198.1/306.8 and 161.2/283.1; readwritesplit, one server, 214.5/306.8 and 205.0/283.1)"
echo "relay CPU/txn: utime+stime from /proc/PID/stat over each timed run; sys/msg and rt/msg (futex+nanosleep+sched_yield):"
echo "  strace -c -f -p PID over $STRACE_EVENTS oltp_read_only / $((STRACE_EVENTS * 10)) oltp_point_select transactions, messages = 2 x queries"
for path in "${PATHS[@]}" "${!SKIP[@]}"; do
	if [ -n "${SKIP[$path]:-}" ]; then echo "skipped $path: ${SKIP[$path]}"; fi
done | sort -u

cat <<'SEEDS'

The seeds' published table (MXS-1515, one machine, 2018: sysbench oltp_read_only, 1 thread,
30 s, 1M rows, database on another host; other machine, other figures, context only):
| path | tps | avg ms | p95 ms |
|---|---|---|---|
| direct TCP | 1024.54 | 0.97 | 1.21 |
| HAProxy | 568.24 | 1.76 | 2.61 |
| MaxScale readconnroute | 559.36 | 1.79 | 2.76 |
| socat TCP nodelay | 677.32 | 1.48 | 2.35 |
| MaxScale, client on UNIX socket | 773.85 | 1.29 | 1.89 |
| socat UNIX -> TCP | 756.86 | 1.32 | 1.96 |
SEEDS
