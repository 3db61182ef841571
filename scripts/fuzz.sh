#!/usr/bin/env bash
# Runs every Fuzz target of the given packages (default ./...) for FUZZTIME
# each (default 10s). go test -fuzz takes one target in one package at a
# time, so the targets are listed first with go test -list.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-10s}
[ $# -gt 0 ] || set -- ./...
ran=0
for pkg in $("$GO" list "$@"); do
	targets=$("$GO" test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true)
	for t in $targets; do
		echo "fuzz: $pkg $t for $FUZZTIME"
		"$GO" test -run '^$' -fuzz "^${t}\$" -fuzztime "$FUZZTIME" "$pkg"
		ran=$((ran + 1))
	done
done
if [ "$ran" -eq 0 ]; then
	echo "fuzz: no Fuzz target found in $*" >&2
	exit 1
fi
echo "fuzz: $ran targets ran for $FUZZTIME each"
