#!/usr/bin/env bash
# make bench: the project's main job.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x bin/hopbench ]; then
	exec bin/hopbench "$@"
fi
echo "bench: no binaries yet" >&2
