#!/usr/bin/env bash
# Installs the optional peers hoplat compares against and tests with.
# Needs root (apt-get); says what it did and what it skipped.
set -euo pipefail
pkgs=(socat haproxy sockperf mariadb-server mariadb-client mariadb-backup galera-4 rsync sysbench python3-pymysql strace openssh-server openssh-client iproute2 chromium-headless-shell nginx-light libnginx-mod-stream prometheus)
missing=()
for p in "${pkgs[@]}"; do
	if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		echo "deps: $p already installed"
	else
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "deps: nothing to install"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: need root to apt-get install: ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The packages may start services; hoplat starts its own servers (Prometheus
# too) from temp datadirs on free ports, so stop the system ones to keep the
# machine quiet.
for svc in mariadb haproxy ssh nginx prometheus; do
	if command -v systemctl >/dev/null && systemctl is-active -q "$svc" 2>/dev/null; then
		systemctl stop "$svc" || true
	fi
done
echo "deps: installed ${missing[*]}"
