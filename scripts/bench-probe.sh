#!/usr/bin/env bash
# make bench-probe: does the probe's cross-CPU wake-up say what a real
# ping-pong pays for crossing CPUs?
#
# In interleaved rounds, on one machine, in one run:
#   packed  sockperf server and client both on CPU 0 (taskset): a round trip
#           is kernel path and two same-CPU context switches;
#   spread  server on CPU 1, client on CPU 0: the same round trip plus two
#           cross-CPU wake-ups (one each way);
#   probe   hoplat's machine probe (go test -bench Probe ./probe/): one-way
#           wake-up latency, pinned threads over a pipe, same CPU and cross
#           CPU.
# sockperf's extra cost per wake-up is (spread - packed) / 2 of the full
# round trip (--full-rtt); the probe's is its cross-CPU wake-up minus its
# same-CPU one (the packed round trip already pays a same-CPU switch). The
# target is agreement within 25%.
#
# ROUNDS (default 5), SECS per sockperf run (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-2}
command -v sockperf >/dev/null || { echo "bench-probe: sockperf not installed (make deps)" >&2; exit 1; }
command -v taskset >/dev/null || { echo "bench-probe: taskset not installed" >&2; exit 1; }
[ "$(nproc)" -ge 2 ] || { echo "bench-probe: one CPU: there is no cross-CPU wake-up to measure" >&2; exit 1; }

tmp=$(mktemp -d)
ME=bench-probe
# shellcheck source=scripts/lib.sh
. scripts/lib.sh
trap cleanup EXIT

# One sockperf server per CPU, each on a free port; it says nothing when
# ready, so wait until it listens.
for cpu in 0 1; do
	if ! launch "sp$cpu" taskset -c "$cpu" sockperf server --tcp -i 127.0.0.1 -p {PORT}; then
		echo "bench-probe: sockperf server on CPU $cpu did not start:" >&2
		cat "$tmp/sp$cpu.log" >&2
		exit 1
	fi
	PORT[$cpu]=${PORT[sp$cpu]}
done

p50() { # server-cpu -> full round trip p50 in us
	taskset -c 0 sockperf ping-pong --tcp -i 127.0.0.1 -p "${PORT[$1]}" -m 64 -t "$SECS" --full-rtt 2>&1 |
		awk '/percentile 50.000 =/{print $NF}'
}

echo "bench-probe: $ROUNDS interleaved rounds; sockperf 64 B TCP --full-rtt ${SECS}s, client on CPU 0, server on CPU 0 (packed) or 1 (spread), taskset"
printf '%-6s %10s %10s %14s %12s %12s\n' round packed spread "per-wake sp" "probe cross" "probe same"
for r in $(seq "$ROUNDS"); do
	pk=$(p50 0)
	sp=$(p50 1)
	pr=$(go test -count=1 -run '^$' -bench '^BenchmarkProbe$' -benchtime 1x ./probe/ 2>&1 | awk '/^BenchmarkProbe/{for(i=1;i<=NF;i++){if($i=="wake-cross-µs")c=$(i-1); if($i=="wake-same-µs")s=$(i-1)}; print c, s}')
	read -r cross same <<<"$pr"
	[ -n "$pk" ] && [ -n "$sp" ] && [ -n "$cross" ] || { echo "bench-probe: round $r produced no figure" >&2; exit 1; }
	per=$(awk -v a="$sp" -v b="$pk" 'BEGIN{printf "%.2f", (a-b)/2}')
	echo "$pk $sp $per $cross $same" >>"$tmp/rounds"
	printf '%-6s %10s %10s %14s %12s %12s\n' "$r" "$pk" "$sp" "$per" "$cross" "$same"
done
awk '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ n++; pk[n] = $1; sp[n] = $2; per[n] = $3; cr[n] = $4; sa[n] = $5; d[n] = $4 - $5 }
END {
	mp = median(per, n); md = median(d, n)
	printf "%-6s %10.2f %10.2f %14.2f %12.2f %12.2f\n", "median", median(pk, n), median(sp, n), mp, median(cr, n), median(sa, n)
	printf "\nextra cost of one cross-CPU wake-up: sockperf (spread - packed) / 2 = %.2f us; probe cross - same = %.2f us\n", mp, md
	printf "probe / sockperf = %.2f (target 0.75 .. 1.25: %s)\n", md / mp, (md / mp >= 0.75 && md / mp <= 1.25) ? "within" : "OUTSIDE"
}' "$tmp/rounds"
