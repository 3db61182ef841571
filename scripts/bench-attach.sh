#!/usr/bin/env bash
# make bench-attach: each proxy installed here (HAProxy nbthread 1, socat
# fork, hoprelay's epoll and goroutine engines) in front of pongd's echo,
# everything on CPU 0, under pingpong load; hopbench attach traces it while
# pingpong measures the round trip, against the direct path's round trip
# measured just before. Prints attach's residence (to_upstream +
# to_client p50: a request's two crossings) beside the added p50, and
# what attaching costs HAProxy's p50 (the median of three interleaved
# pairs, off and on), at attach's default duty (hooks attached 10% of the
# time) and at 100% (every chunk). Needs root (BPF). About 100 seconds.
set -euo pipefail
BIN=${BIN:-bin}
T=${ATTACH_TIME:-4s}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
waitport() { for _ in $(seq 500); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.01; done; echo "port $1 never opened" >&2; exit 1; }
p50() { jq -r '.results[0].latency_us.p50' "$1"; }

srv=$(port)
taskset -c 0 "$BIN/pongd" --listen "tcp:127.0.0.1:$srv" --proto echo >"$tmp/pongd.log" 2>&1 & pids+=($!)
waitport "$srv"
load() { taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$1" --time "$T" --warmup 500ms --format json >"$2"; }
load "$srv" "$tmp/direct.json"
direct=$(p50 "$tmp/direct.json")

gov=$(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo none)
echo "machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs, cpuidle $gov"
echo "placement: pongd, each proxy and pingpong on CPU 0; hopbench attach off the proxy's CPUs where free"
printf '%-18s %12s %12s %14s %14s %12s\n' proxy "p50 rtt µs" "added µs" "attach up µs" "attach down µs" "attach sum"
run() { # name target port: target is --pid PID or --comm NAME
	local name=$1 target=$2 p=$3
	load "$p" "$tmp/$name.json" & local lp=$!
	"$BIN/hopbench" attach $target --time "$T" --format json >"$tmp/$name.attach.json"
	wait "$lp"
	local rtt up down
	rtt=$(p50 "$tmp/$name.json")
	up=$(jq -r '.directions[0].residence_us.p50' "$tmp/$name.attach.json")
	down=$(jq -r '.directions[1].residence_us.p50' "$tmp/$name.attach.json")
	printf '%-18s %12.1f %12.1f %14.1f %14.1f %12.1f\n' "$name" "$rtt" "$(echo "$rtt - $direct" | bc -l)" "$up" "$down" "$(echo "$up + $down" | bc -l)"
}

# overhead PID PORT DUTY: what attaching costs HAProxy's path, as
# pingpong's p50 with and without attach at --duty DUTY, three pairs
# interleaved (off, on, off, on, ...), each pair's ratio, their median.
# attach is up before pingpong's warmup ends (its calibration takes about
# a second), and traces past its run.
overhead() {
	local pid=$1 p=$2 duty=$3 ratios=() i off on
	for i in 1 2 3; do
		taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$p" --time 3s --warmup 3s --format json >"$tmp/off$i.json"
		"$BIN/hopbench" attach --pid "$pid" --time 7s --duty "$duty" --format json >"$tmp/on$i.attach.json" & local ap=$!
		taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$p" --time 3s --warmup 3s --format json >"$tmp/on$i.json"
		wait "$ap"
		off=$(p50 "$tmp/off$i.json") on=$(p50 "$tmp/on$i.json")
		ratios+=("$off:$on:$(jq -r '[.directions[].chunks] | join(":")' "$tmp/on$i.attach.json")")
	done
	local own
	own=$(jq -r '.tracer.cpus // "shared"' "$tmp/on3.attach.json")
	python3 - "$duty" "$own" "${ratios[@]}" <<'PY'
import statistics, sys
duty, own = sys.argv[1], sys.argv[2]
pairs = [a.split(":") for a in sys.argv[3:]]
pct = [100 * (float(on) / float(off) - 1) for off, on, _, _ in pairs]
print("haproxy attached, duty %s%%, attach on CPUs %s: p50 %+.1f%%" % (duty, own, statistics.median(pct)))
print("  median of 3 interleaved pairs: %s; chunks up/down %s" % (
    ", ".join("%.2f→%.2f µs" % (float(off), float(on)) for off, on, _, _ in pairs),
    ", ".join("%s/%s" % (up, down) for _, _, up, down in pairs)))
PY
}

if command -v haproxy >/dev/null; then
	hp=$(port)
	cat >"$tmp/haproxy.cfg" <<CFG
global
    nbthread 1
defaults
    mode tcp
    timeout connect 5s
    timeout client 1m
    timeout server 1m
listen bench
    bind 127.0.0.1:$hp
    server s1 127.0.0.1:$srv
CFG
	taskset -c 0 haproxy -f "$tmp/haproxy.cfg" -db >"$tmp/haproxy.log" 2>&1 & pids+=($!)
	waitport "$hp"
	run "haproxy" "--pid ${pids[-1]}" "$hp"
	overhead "${pids[-1]}" "$hp" 10
	overhead "${pids[-1]}" "$hp" 100
fi
if command -v socat >/dev/null; then
	sp=$(port)
	taskset -c 0 socat "TCP-LISTEN:$sp,bind=127.0.0.1,fork,reuseaddr" "TCP:127.0.0.1:$srv" & pids+=($!)
	waitport "$sp"
	run "socat fork" "--comm socat" "$sp" # its child serves the connection
fi
for engine in epoll goroutine; do
	rp=$(port)
	taskset -c 0 "$BIN/hoprelay" --engine "$engine" "tcp:127.0.0.1:$rp" "tcp:127.0.0.1:$srv" >"$tmp/relay.log" 2>&1 & pids+=($!)
	waitport "$rp"
	run "hoprelay $engine" "--pid ${pids[-1]}" "$rp"
done
echo "direct p50 rtt $direct µs; attach sum = to_upstream + to_client residence p50 (a round trip crosses twice)"
