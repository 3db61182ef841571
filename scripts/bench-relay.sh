#!/usr/bin/env bash
# make bench-relay: what one relay hop adds, hoprelay's engines beside
# socat, HAProxy (with and without busy-polling) and the floor, in both
# regimes, in one run of interleaved rounds.
#
# Hop cost: sockperf (a client nobody here wrote) ping-pongs 64-byte
# messages over one TCP connection to a sockperf server, directly and
# through each relay. Round trips come from sockperf --full-rtt, so they
# are FULL round trips (sockperf's default output is half of one). Per
# round each path's p50/p99 minus the direct path's in the same round is
# its added cost; the tables show the median over rounds.
#
# One relay runs at a time: each is started afresh, pinned, for its own
# sockperf run and stopped after it, so that no relay's idle threads (nor
# a polling one's spin) sit on the CPUs of another's round.
#
# Regimes (REGIMES, default "packed spread"):
#   packed  sockperf client, relay and sockperf server all on CPU 0: a hop
#           costs kernel path, system calls and context switches only;
#   spread  the relay alone on CPU 1, client and server on CPU 0: every
#           message also crosses CPUs twice, and a relay that sleeps pays
#           the wake-up of an idle CPU each time;
#   none    nothing pinned (the scheduler places every process).
#
# The floor is what the machine probe prices a user-space relay at
# (go test -bench Probe ./probe): two more loopback TCP legs and two more
# same-CPU switches to another process. Spread, each path's CPU per round
# trip is CPU 1's busy time (/proc/stat, the relay's and its softirqs')
# over its round trips.
#
# Then, unless QUICK=1: tps at 64 connections, a 1 GiB stream and RSS per
# idle connection, from `go test -bench BenchmarkPeers ./relay`, packed.
#
# Knobs: ROUNDS (default 7), SECS per sockperf run (2), BIN (bin), QUICK,
# REGIMES.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-bin}
ROUNDS=${ROUNDS:-7}
SECS=${SECS:-2}
REGIMES=${REGIMES:-packed spread}
ME=bench-relay

need() { [ -n "$(find_prog "$1")" ] || { echo "$ME: $1 not found (make deps)" >&2; exit 1; }; }
tmp=$(mktemp -d)
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
trap cleanup EXIT INT TERM
for p in sockperf socat haproxy taskset; do need "$p"; done
[ -x "$BIN/hoprelay" ] || { echo "$ME: $BIN/hoprelay missing (run via make bench-relay)" >&2; exit 1; }
HAPROXY=$(find_prog haproxy)
[ "$(nproc)" -ge 2 ] || REGIMES=${REGIMES//spread/}

# The paths of a regime. sockmap needs root (BPF); --spin only where the
# relay has a CPU of its own (packed, it would hold the CPU its client
# and server need, for the whole run).
paths_of() {
	local p=(direct goroutine epoll splice)
	[ "$(id -u)" = 0 ] && p+=(sockmap)
	[ "$1" = spread ] && p+=(epoll-spin)
	p+=(socat haproxy haproxy-busy)
	echo "${p[@]}"
}

# cpus_of REGIME sets PIN_CS (client and server) and PIN_R (relay).
cpus_of() {
	case $1 in
	packed) PIN_CS=(taskset -c 0) PIN_R=(taskset -c 0) WHERE="sockperf client, relay and sockperf server on CPU 0" ;;
	spread) PIN_CS=(taskset -c 0) PIN_R=(taskset -c 1) WHERE="relay alone on CPU 1, sockperf client and server on CPU 0" ;;
	none) PIN_CS=() PIN_R=() WHERE="UNPINNED, every process placed by the scheduler" ;;
	*) echo "$ME: REGIMES: $1: want packed, spread or none" >&2; exit 2 ;;
	esac
}

haproxy_cfg() { # PORT UPSTREAM-PORT BUSY
	cat <<CFG
global
	nbthread 1
	maxconn 9000
$([ "$3" = 1 ] && printf '\tbusy-polling')
defaults
	mode tcp
	timeout connect 5s
	timeout client 1h
	timeout server 1h
listen relay
	bind 127.0.0.1:$1
	server upstream 127.0.0.1:$2
CFG
}

# start_path PATH: starts PATH's relay pinned as the regime says, in front
# of the sockperf server on port $SP; sets RPID and RPORT. direct starts
# nothing.
start_path() {
	RPID='' RPORT=$SP
	local flags=()
	case $1 in
	direct) return 0 ;;
	socat)
		launch socat "${PIN_R[@]}" socat "TCP4-LISTEN:{PORT},bind=127.0.0.1,reuseaddr,fork,nodelay" "TCP4:127.0.0.1:$SP,nodelay" ||
			{ echo "$ME: socat did not listen: $(cat "$tmp/socat.log")" >&2; exit 1; }
		RPID=${pids[-1]} RPORT=${PORT[socat]}
		return 0 ;;
	haproxy | haproxy-busy)
		local port busy=0
		[ "$1" = haproxy-busy ] && busy=1
		for _ in 1 2 3; do
			port=$(free_port)
			haproxy_cfg "$port" "$SP" "$busy" >"$tmp/$1.cfg"
			"${PIN_R[@]}" "$HAPROXY" -db -f "$tmp/$1.cfg" >"$tmp/$1.log" 2>&1 &
			pids+=($!)
			if wait_ready "$port" "${pids[-1]}"; then RPID=${pids[-1]} RPORT=$port; return 0; fi
			stop "${pids[-1]}"
		done
		echo "$ME: haproxy did not listen: $(cat "$tmp/$1.log")" >&2
		exit 1 ;;
	epoll-spin) flags=(--engine epoll --spin) ;;
	*) flags=(--engine "$1") ;;
	esac
	"${PIN_R[@]}" "$BIN/hoprelay" "${flags[@]}" tcp:127.0.0.1:0 "TCP4:127.0.0.1:$SP,nodelay" >"$tmp/$1.out" 2>"$tmp/$1.err" &
	pids+=($!)
	RPID=${pids[-1]}
	local addr
	addr=$(wait_line "$tmp/$1.out" "$RPID") || { echo "$ME: hoprelay $1 did not start: $(cat "$tmp/$1.err")" >&2; exit 1; }
	RPORT=${addr##*:}
	# What the loop chose, once per path.
	grep -m1 '^hoprelay: wake' "$tmp/$1.err" | sed "s/^hoprelay: /$1: /" >>"$tmp/wake.$REGIME" || true
}

# busy_ticks CPU: the CPU's busy time so far, in USER_HZ ticks (proc(5)).
busy_ticks() { awk -v c="cpu$1" '$1 == c { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

echo "$ME: sockperf ping-pong --tcp -m 64 -t $SECS --full-rtt, $ROUNDS interleaved rounds, one relay at a time; full round trips in µs"
echo "  machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs," \
	"cpuidle $(cat /sys/devices/system/cpu/cpuidle/current_governor_ro 2>/dev/null || cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo none)"
# The floor, from the machine probe: one run before the rounds.
go test -count=1 -run '^$' -bench '^BenchmarkProbe$' -benchtime 1x ./probe/ >"$tmp/probe" 2>&1 || { echo "$ME: the probe failed:" >&2; cat "$tmp/probe" >&2; exit 1; }
read -r FLOOR LEG WAKEP WAKET < <(awk '/^BenchmarkProbe/ { for (i = 2; i <= NF; i++) m[$i] = $(i - 1)
	print m["relay-floor-µs"], m["leg-tcp-µs"], m["wake-same-process-µs"], m["wake-same-µs"] }' "$tmp/probe")
echo "  floor: ${FLOOR} µs = 2 × (tcp leg ${LEG} + same-CPU wake-up to another process ${WAKEP}); between threads the wake-up is ${WAKET} µs"

for REGIME in $REGIMES; do
	cpus_of "$REGIME"
	read -r -a PATHS <<<"$(paths_of "$REGIME")"
	: >"$tmp/rounds.$REGIME"
	launch direct "${PIN_CS[@]}" sockperf server --tcp -i 127.0.0.1 -p {PORT} || { echo "$ME: sockperf server did not listen: $(cat "$tmp/direct.log")" >&2; exit 1; }
	SP=${PORT[direct]} SPPID=${pids[-1]}
	echo
	echo "$REGIME: $WHERE"
	for r in $(seq "$ROUNDS"); do
		for p in "${PATHS[@]}"; do
			start_path "$p"
			b0=$(busy_ticks 1)
			out=$("${PIN_CS[@]}" sockperf ping-pong --tcp -i 127.0.0.1 -p "$RPORT" -m 64 -t "$SECS" --full-rtt 2>&1) || {
				echo "$ME: sockperf via $p failed:" >&2
				echo "$out" >&2
				exit 1
			}
			b1=$(busy_ticks 1)
			[ -z "$RPID" ] || stop "$RPID"
			awk -v r="$r" -v p="$p" -v ticks=$((b1 - b0)) -v hz="$(getconf CLK_TCK)" '
				/percentile 50.000 =/ { p50 = $NF }
				/percentile 99.000 =/ { p99 = $NF }
				/Total Run/ { for (i = 1; i <= NF; i++) if ($i ~ /^SentMessages=/) { split($i, a, "="); n = a[2] } }
				END { printf "%s %s %s %s %.2f\n", r, p, p50, p99, (n > 0 ? ticks / hz * 1e6 / n : 0) }' <<<"$out" >>"$tmp/rounds.$REGIME"
		done
		echo "  round $r/$ROUNDS done" >&2
	done
	stop "$SPPID"
	sort -u "$tmp/wake.$REGIME" 2>/dev/null | sed 's/^/  /' || true
	awk -v paths="${PATHS[*]}" -v regime="$REGIME" -v floor="$FLOOR" '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function verdict(ok) { return ok ? "met" : "MISSED" }
	{ p50[$1, $2] = $3; p99[$1, $2] = $4; cpu[$1, $2] = $5; if ($1 > rounds) rounds = $1 }
	END {
		np = split(paths, P, " ")
		spread = regime == "spread"
		printf "  %-13s %8s %8s %10s %10s%s\n", "path", "p50", "p99", "added p50", "added p99", spread ? "  CPU 1 µs/rt" : ""
		for (k = 1; k <= np; k++) {
			p = P[k]
			for (r = 1; r <= rounds; r++) { a[r] = p50[r, p]; b[r] = p99[r, p]; c[r] = p50[r, p] - p50[r, "direct"]; d[r] = p99[r, p] - p99[r, "direct"]; e[r] = cpu[r, p] }
			m50[p] = median(a, rounds); m99[p] = median(b, rounds); add50[p] = median(c, rounds); add99[p] = median(d, rounds); mcpu[p] = median(e, rounds)
			if (p == "direct") printf "  %-13s %8.2f %8.2f %10s %10s\n", p, m50[p], m99[p], "baseline", ""
			else printf "  %-13s %8.2f %8.2f %10.2f %10.2f%s\n", p, m50[p], m99[p], add50[p], add99[p], spread ? sprintf("  %12.2f", mcpu[p]) : ""
		}
		peer50 = add50["socat"] < add50["haproxy"] ? add50["socat"] : add50["haproxy"]
		peer99 = add99["socat"] < add99["haproxy"] ? add99["socat"] : add99["haproxy"]
		if (regime == "packed" || regime == "none") {
			printf "  default engine (epoll): added p50 %.2f <= min(socat, haproxy) %.2f: %s; %.2fx the floor %.2f (target <= 1.05): %s\n",
				add50["epoll"], peer50, verdict(add50["epoll"] <= peer50), add50["epoll"] / floor, floor, verdict(add50["epoll"] <= 1.05 * floor)
			printf "  default engine (epoll): added p99 %.2f <= min(socat, haproxy) %.2f: %s\n", add99["epoll"], peer99, verdict(add99["epoll"] <= peer99)
			if ("sockmap" in add50)
				printf "  sockmap: added p50 %.2f, %.2fx haproxy (target <= 0.6): %s\n", add50["sockmap"], add50["sockmap"] / add50["haproxy"], verdict(add50["sockmap"] <= 0.6 * add50["haproxy"])
		} else {
			printf "  default engine (epoll): added p50 %.2f, %.2fx haproxy default (target <= 0.3): %s\n",
				add50["epoll"], add50["epoll"] / add50["haproxy"], verdict(add50["epoll"] <= 0.3 * add50["haproxy"])
			printf "  against haproxy busy-polling: p50 %.2f vs %.2f: %s; p99 %.2f vs %.2f: %s; CPU per round trip %.2f vs %.2f µs: %s\n",
				add50["epoll"], add50["haproxy-busy"], verdict(add50["epoll"] <= add50["haproxy-busy"]),
				add99["epoll"], add99["haproxy-busy"], verdict(add99["epoll"] <= add99["haproxy-busy"]),
				mcpu["epoll"], mcpu["haproxy-busy"], verdict(mcpu["epoll"] <= mcpu["haproxy-busy"])
		}
	}' "$tmp/rounds.$REGIME"
done

[ "${QUICK:-0}" = 1 ] && exit 0
# BenchmarkPeers starts its own client, relays and server, each pinned by
# affinity.StartOn (HOPLAT_RELAY_PLACEMENT), and names the placement in
# every figure's line; ROUNDS interleaved rounds, medians.
PEERS_PLACEMENT="client=0 relay=0 server=0"
echo
echo "concurrency, stream, idle RSS: HOPLAT_RELAY_PLACEMENT='$PEERS_PLACEMENT' HOPLAT_RELAY_ROUNDS=$ROUNDS go test -run '^\$' -bench BenchmarkPeers -benchtime 1x ./relay"
HOPLAT_BIN="$PWD/$BIN" HOPLAT_RELAY_PLACEMENT="$PEERS_PLACEMENT" HOPLAT_RELAY_ROUNDS="$ROUNDS" \
	go test -run '^$' -bench BenchmarkPeers -benchtime 1x -timeout 30m ./relay >"$tmp/peers" 2>&1 || true
grep -E '^(Benchmark|ok|FAIL|---)|peers_linux_test' "$tmp/peers" || true
