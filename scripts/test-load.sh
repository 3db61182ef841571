#!/usr/bin/env bash
# make test-load: the fast loop (go test -short) on a loaded machine, one
# busy loop per CPU beside it, as a concurrent benchmark or a noisy
# neighbour would load it. A test whose timing assertion holds only on an
# idle machine fails here. Arguments are the packages (make test-load
# passes those that time something); none means ./...
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
hogs=()
cleanup() {
	for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null || true; done
	for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
for _ in $(seq "$(nproc)"); do
	# A shell's empty loop: all CPU, no memory, no system calls.
	bash -c 'while :; do :; done' &
	hogs+=($!)
done
echo "test-load: $(nproc) busy loops running (pids ${hogs[*]}); go test -short beside them"
[ $# -gt 0 ] || set -- ./...
HOPLAT_BIN="$PWD/bin" "$GO" test -short -count=1 -timeout 10m "$@"
