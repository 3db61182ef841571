#!/usr/bin/env bash
# make bench: the project's main job. Once the driver (bin/hopbench) exists
# it runs that; until then it measures pingpong against pongd over TCP and
# over UNIX on this machine, side by side, in interleaved rounds.
#
# ROUNDS (default 3), SECS (default 3), THREADS (default 1), IO (default
# netpoll, for both ends) size the fallback run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x bin/hopbench ]; then
	exec bin/hopbench "$@"
fi
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-3}
THREADS=${THREADS:-1}
IO=${IO:-netpoll}
for b in pingpong pongd; do
	[ -x "bin/$b" ] || { echo "bench: bin/$b missing (make build)" >&2; exit 1; }
done

tmp=$(mktemp -d)
pongd=
cleanup() {
	if [ -n "$pongd" ]; then kill "$pongd" 2>/dev/null || true; wait "$pongd" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# One responder serves both transports; it prints "listening ADDR" per
# listener once all are bound.
bin/pongd --listen tcp:127.0.0.1:0 --listen "unix:$tmp/pongd.sock" --io "$IO" >"$tmp/pongd.out" 2>"$tmp/pongd.err" &
pongd=$!
for _ in $(seq 100); do
	[ "$(grep -c '^listening ' "$tmp/pongd.out")" -ge 2 ] && break
	kill -0 "$pongd" 2>/dev/null || { echo "bench: pongd failed: $(cat "$tmp/pongd.err")" >&2; exit 1; }
	sleep 0.05
done
tcp=$(awk '/^listening tcp/{print $2; exit}' "$tmp/pongd.out")
unix=$(awk '/^listening unix/{print $2; exit}' "$tmp/pongd.out")
[ -n "$tcp" ] && [ -n "$unix" ] || { echo "bench: pongd did not report both listeners" >&2; exit 1; }

# col FILE NAME: the first data row's column NAME of pingpong's CSV.
col() { awk -F, -v name="$2" 'NR==1{for(i=1;i<=NF;i++) if($i==name) c=i; next} c{print $c; exit}' "$1"; }
median() { sort -g | awk '{v[NR]=$1} END{if(NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }

measure() { # name target
	local out="$tmp/$1.csv"
	if ! bin/pingpong --target "$2" --io "$IO" --threads "$THREADS" --time "${SECS}s" --format csv >"$out" 2>"$tmp/$1.err"; then
		echo "bench: pingpong --target $2 failed: $(cat "$tmp/$1.err")" >&2
		exit 1
	fi
	for f in p50_us p99_us tps; do col "$out" $f >>"$tmp/$1.$f"; done
}

echo "bench: pingpong -> pongd (echo, 64 B, $THREADS thread(s), --io $IO), $ROUNDS interleaved rounds x ${SECS}s"
for r in $(seq "$ROUNDS"); do
	measure tcp "$tcp"
	measure unix "$unix"
	printf 'round %d: tcp p50 %s us, unix p50 %s us\n' "$r" "$(tail -1 "$tmp/tcp.p50_us")" "$(tail -1 "$tmp/unix.p50_us")"
done
echo
printf '%-22s %12s %12s %14s %8s\n' "median of rounds" tcp unix "unix - tcp" ratio
for f in p50_us p99_us tps; do
	t=$(median <"$tmp/tcp.$f")
	u=$(median <"$tmp/unix.$f")
	awk -v f="$f" -v t="$t" -v u="$u" 'BEGIN{printf "%-22s %12.3f %12.3f %+14.3f %8.3f\n", f, t, u, u-t, (t ? u/t : 0)}'
done
echo "(latency is the full round trip in microseconds)"
