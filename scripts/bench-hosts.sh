#!/usr/bin/env bash
# make bench-hosts: MXS-1515's table (field-notes.md §1) with the database
# on a host of its own. The topology file puts the client and every relay
# (direct, hoprelay's epoll engine, socat, HAProxy: those installed) in one
# network namespace, app, and the database in another, db, joined by a veth
# pair, so the relay's upstream hop crosses a second IP stack instead of
# loopback; the client leg runs over TCP and over a UNIX socket. The
# database is pongd's MySQL mock answering the file's COMMAND. Components
# are pinned as the file's <COMPONENT>_CPUS say (client and relays on one
# CPU, the database on another). hopbench removes the namespaces at the end,
# on error and on Ctrl-C.
#
# Needs root (ip netns add). ROUNDS (default 5) and SECS (default 3) size
# the run, about two minutes; TOPOLOGY names another file (default
# hosts/testdata/mxs-1515.conf); any further arguments go to hopbench and
# override the file (--placement 'client=0 relay=0 server=0', --paths …).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-5}
SECS=${SECS:-3}
TOPOLOGY=${TOPOLOGY:-hosts/testdata/mxs-1515.conf}
for b in hopbench pongd pingpong hoprelay; do
	[ -x "bin/$b" ] || { echo "bench-hosts: bin/$b missing (make build)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "bench-hosts: network namespaces need root (sudo make bench-hosts)" >&2; exit 1; }
command -v ip >/dev/null || { echo "bench-hosts: ip (iproute2) not installed (make deps)" >&2; exit 1; }
[ -r "$TOPOLOGY" ] || { echo "bench-hosts: no topology file $TOPOLOGY" >&2; exit 1; }

# What the file says, for the header: its hosts and its placement.
keys() { grep -E "^($1)=" "$TOPOLOGY" | tr -d "\"'" | tr '\n' ' '; }
echo "bench-hosts: $TOPOLOGY: $(keys 'HOST_[A-Z0-9]+')"
echo "bench-hosts: components $(keys '[A-Z]+_HOST')"
echo "bench-hosts: pinned $(keys '[A-Z]+_CPUS')"
echo "bench-hosts: $ROUNDS interleaved rounds x ${SECS}s per path"
exec bin/hopbench --topology "$TOPOLOGY" --runs "$ROUNDS" --time "${SECS}s" "$@"
