#!/usr/bin/env bash
# make bench-attach: each proxy installed here (HAProxy nbthread 1, socat
# fork, hoprelay's epoll and goroutine engines) in front of pongd's echo,
# everything on CPU 0, under pingpong load; hopbench attach traces it while
# pingpong measures the round trip, against the direct path's round trip
# measured just before. Prints attach's residence (to_upstream +
# to_client p50: a request's two crossings) beside the added p50, and
# what attaching costs HAProxy's p50 (the median of three interleaved
# pairs, off and on) at attach's default duty (hooks attached 10% of the
# time; ATTACH_DUTIES="10 100" adds every chunk). Then Debian's
# Prometheus (two servers: one with native histograms, one keeping the
# classic buckets) scrapes attach --listen on HAProxy every second, and
# its histogram_quantile p50 and p99 print beside attach's own for the
# same window. Needs root (BPF). About a minute.
# ATTACH_SECTIONS picks sections (default "proxies cost prometheus"), and
# ATTACH_COST_RUNS repeats the cost section (default 1).
set -euo pipefail
BIN=${BIN:-bin}
T=${ATTACH_TIME:-3s}
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
waitport() { for _ in $(seq 500); do (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0; sleep 0.01; done; echo "port $1 never opened" >&2; exit 1; }
p50() { jq -r '.results[0].latency_us.p50' "$1"; }
want() { [[ " ${ATTACH_SECTIONS:-proxies cost prometheus} " == *" $1 "* ]]; }

srv=$(port)
taskset -c 0 "$BIN/pongd" --listen "tcp:127.0.0.1:$srv" --proto echo >"$tmp/pongd.log" 2>&1 & pids+=($!)
waitport "$srv"
load() { taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$1" --time "$T" --warmup 500ms --format json >"$2"; }
load "$srv" "$tmp/direct.json"
direct=$(p50 "$tmp/direct.json")

gov=$(cat /sys/devices/system/cpu/cpuidle/current_governor 2>/dev/null || echo none)
echo "machine: $(uname -r), $(awk -F': ' '/^model name/{print $2; exit}' /proc/cpuinfo), $(nproc) CPUs, cpuidle $gov"
echo "placement: pongd, each proxy and pingpong on CPU 0; hopbench attach off the proxy's CPUs where free"
want proxies && printf '%-18s %12s %12s %14s %14s %12s\n' proxy "p50 rtt µs" "added µs" "attach up µs" "attach down µs" "attach sum"
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

# attached PID PORT DUTY I runs pingpong through the proxy with attach on
# it: its report in $tmp/onI.json, attach's in $tmp/onI.attach.json.
attached() {
	local pid=$1 p=$2 duty=$3 i=$4 ap
	"$BIN/hopbench" attach --pid "$pid" --time 7s --duty "$duty" --format json >"$tmp/on$i.attach.json" & ap=$!
	taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$p" --time 4s --warmup 2s --format json >"$tmp/on$i.json"
	wait "$ap"
}

# overhead PID PORT DUTY: what attaching costs HAProxy's path, as
# pingpong's p50 with and without attach at --duty DUTY, three pairs
# interleaved, the second in the other order (off, on, on, off, off, on),
# each pair's ratio, their median.
# attach is up before pingpong's warmup ends (its calibration takes about
# a second), and traces past its run. A run is 4 s, a whole number of
# attach's duty periods (a 200 ms window every 2 s at 10%, every 0.2 s at
# 100%): whatever the windows' phase, the hooks are attached the duty's
# share of the run, as over a long one (3 s held two windows, 13%).
overhead() {
	local pid=$1 p=$2 duty=$3 ratios=() i off on
	# The order alternates: a proxy's round trip drifts over a minute by as
	# much as the cost measured, and a fixed order would count the drift as
	# the cost.
	for i in 1 2 3; do
		if [ "$i" = 2 ]; then
			attached "$pid" "$p" "$duty" "$i"
			taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$p" --time 4s --warmup 2s --format json >"$tmp/off$i.json"
		else
			taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$p" --time 4s --warmup 2s --format json >"$tmp/off$i.json"
			attached "$pid" "$p" "$duty" "$i"
		fi
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
print("  median of 3 interleaved pairs, the second on first: %s; chunks up/down %s" % (
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
	want proxies && run "haproxy" "--pid ${pids[-1]}" "$hp"
	if want cost; then
		for _ in $(seq "${ATTACH_COST_RUNS:-1}"); do
			for duty in ${ATTACH_DUTIES:-10}; do
				overhead "${pids[-1]}" "$hp" "$duty"
			done
		done
	fi
	haproxy_pid=${pids[-1]} haproxy_port=$hp
fi
if want proxies && command -v socat >/dev/null; then
	sp=$(port)
	taskset -c 0 socat "TCP-LISTEN:$sp,bind=127.0.0.1,fork,reuseaddr" "TCP:127.0.0.1:$srv" & pids+=($!)
	waitport "$sp"
	run "socat fork" "--comm socat" "$sp" # its child serves the connection
fi
for engine in $(want proxies && echo epoll goroutine); do
	rp=$(port)
	taskset -c 0 "$BIN/hoprelay" --engine "$engine" "tcp:127.0.0.1:$rp" "tcp:127.0.0.1:$srv" >"$tmp/relay.log" 2>&1 & pids+=($!)
	waitport "$rp"
	run "hoprelay $engine" "--pid ${pids[-1]}" "$rp"
done
want proxies && echo "direct p50 rtt $direct µs; attach sum = to_upstream + to_client residence p50 (a round trip crosses twice)"

# prometheus_start NATIVE VAR: one Prometheus server scraping attach at
# $metrics every second, native histograms on (yes) or off (no); its
# API's port goes in VAR once it answers ready.
prometheus_start() {
	local native=$1 dir="$tmp/prom-$1" web
	web=$(port)
	printf -v "$2" '%s' "$web"
	mkdir -p "$dir"
	printf 'global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: attach\n    honor_labels: true\n    static_configs:\n      - targets: ["%s"]\n' "$metrics" >"$dir/prometheus.yml"
	local flags=()
	[ "$native" = yes ] && flags=(--enable-feature=native-histograms)
	prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" --web.listen-address="127.0.0.1:$web" \
		"${flags[@]}" >"$dir/log" 2>&1 & pids+=($!)
	for _ in $(seq 1000); do curl -sf "http://127.0.0.1:$web/-/ready" >/dev/null && return 0; sleep 0.02; done
	echo "prometheus did not get ready: $(tail -3 "$dir/log")" >&2
	exit 1
}
# promq WEB EXPR TIME: the vector's values as "direction value" lines.
promq() {
	curl -sf "http://127.0.0.1:$1/api/v1/query" --data-urlencode "query=$2" --data-urlencode "time=$3" |
		jq -r '.data.result[] | "\(.metric.direction) \(.value[1])"'
}
if want prometheus && [ -n "${haproxy_pid:-}" ] && command -v prometheus >/dev/null; then
	metrics="127.0.0.1:$(port)"
	prometheus_start yes nweb
	prometheus_start no cweb
	taskset -c 0 "$BIN/pingpong" --target "tcp:127.0.0.1:$haproxy_port" --time 30s --format json >/dev/null 2>&1 & lp=$!
	began=$(date +%s.%N)
	"$BIN/hopbench" attach --pid "$haproxy_pid" --listen "$metrics" --time 8s --duty 100 --format json 2>/dev/null >"$tmp/prom.attach.json"
	kill "$lp" 2>/dev/null || true
	wait "$lp" 2>/dev/null || true
	# The window's end: the last traced window's start plus its length.
	end=$(python3 -c 'import json,sys,datetime
w = json.load(open(sys.argv[1]))["windows"][-1]
t = datetime.datetime.fromisoformat(w["start"][:26].rstrip("Z") + "+00:00")
print(t.timestamp() + w["duration_s"])' "$tmp/prom.attach.json")
	rng=$(python3 -c "import math,sys; print(math.ceil(float(sys.argv[1]) - float(sys.argv[2])))" "$end" "$began")
	echo
	echo "Prometheus $(prometheus --version 2>&1 | awk 'NR==1{print $3}') scraping hopbench attach --listen on HAProxy every 1 s, the same ${rng} s window:"
	printf '%-12s %-4s %10s %16s %17s\n' direction q "attach µs" "native PromQL µs" "classic PromQL µs"
	for q in 0.5 0.99; do
		promq "$nweb" "histogram_quantile($q, sum by (direction) (rate(hoplat_proxy_residence_seconds[${rng}s])))" "$end" | sort >"$tmp/n"
		promq "$cweb" "histogram_quantile($q, sum by (direction, le) (rate(hoplat_proxy_residence_seconds_bucket[${rng}s])))" "$end" | sort >"$tmp/c"
		key=p50; [ "$q" = 0.99 ] && key=p99
		for d in to_upstream to_client; do
			a=$(jq -r --arg d "$d" --arg k "$key" '.directions[] | select(.name==$d) | .residence_us[$k]' "$tmp/prom.attach.json")
			n=$(awk -v d="$d" '$1==d{printf "%.2f", $2*1e6}' "$tmp/n")
			c=$(awk -v d="$d" '$1==d{printf "%.2f", $2*1e6}' "$tmp/c")
			printf '%-12s %-4s %10.2f %16s %17s\n' "$d" "$key" "$a" "${n:--}" "${c:--}"
		done
	done
	echo "split, µs per chunk (attach's mean; PromQL rate(split) / rate(count), classic server):"
	curl -sf "http://127.0.0.1:$cweb/api/v1/query" --data-urlencode "query=sum by (direction, part) (rate(hoplat_proxy_split_seconds_total[${rng}s])) / on (direction) group_left sum by (direction) (rate(hoplat_proxy_residence_seconds_count[${rng}s]))" --data-urlencode "time=$end" |
		jq -r '.data.result[] | "\(.metric.direction) \(.metric.part) \(.value[1])"' | sort >"$tmp/s"
	for d in to_upstream to_client; do
		line="  $d:"
		for part in blocked runnable on_cpu softirq; do
			a=$(jq -r --arg d "$d" --arg p "$part" '.directions[] | select(.name==$d) | .split_us[$p]' "$tmp/prom.attach.json")
			pq=$(awk -v d="$d" -v p="$part" '$1==d && $2==p {printf "%.2f", $3*1e6}' "$tmp/s")
			line+=" $part $a/${pq:--}"
		done
		echo "$line  (attach/PromQL)"
	done
fi
