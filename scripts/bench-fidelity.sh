#!/usr/bin/env bash
# make bench-fidelity: is pingpong's round trip the kernel's, not its own?
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
for b in pingpong pongd; do
	[ -x "$BIN/$b" ] || { echo "bench-fidelity: $BIN/$b missing (make build)" >&2; exit 1; }
done
if ! command -v sockperf >/dev/null; then
	echo "bench-fidelity: sockperf not installed (make deps): no reference to compare with" >&2
	exit 1
fi

tmp=$(mktemp -d)
ME=bench-fidelity
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
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
echo "  machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs"
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
