#!/usr/bin/env bash
# Start a local Docker engine for the sandbox backend if none is reachable (idempotent).
#
# Usage: scripts/start_dockerd.sh            (needs root; waits up to 60 s for the socket)
# Env:   AGENTGYM_DOCKERD_LOG   log file (default /tmp/agentgym-dockerd.log)
#        AGENTGYM_DOCKERD_WAIT  seconds to wait for the engine (default 60)
#
# The engine runs without iptables or a bridge: sandbox containers use network_mode=none, so
# nothing needs a network. The vfs storage driver works in nested/unprivileged-overlay setups.
set -euo pipefail

log="${AGENTGYM_DOCKERD_LOG:-/tmp/agentgym-dockerd.log}"
wait_s="${AGENTGYM_DOCKERD_WAIT:-60}"

if docker info >/dev/null 2>&1; then
    echo "dockerd: already reachable"
    exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
    echo "dockerd: binary not found (install docker.io)" >&2
    exit 2
fi
if [ "$(id -u)" != "0" ]; then
    echo "dockerd: not reachable and starting it needs root" >&2
    exit 3
fi
if ! pgrep -x dockerd >/dev/null 2>&1; then
    # A stale pid file from a killed engine blocks a new start.
    if [ -f /var/run/docker.pid ] && ! kill -0 "$(cat /var/run/docker.pid)" 2>/dev/null; then
        rm -f /var/run/docker.pid
    fi
    nohup setsid dockerd --storage-driver=vfs --iptables=false --bridge=none \
        >"$log" 2>&1 </dev/null &
fi
for _ in $(seq 1 $((wait_s * 4))); do
    if docker info >/dev/null 2>&1; then
        echo "dockerd: started"
        exit 0
    fi
    sleep 0.25
done
echo "dockerd: did not become reachable within ${wait_s}s; see $log" >&2
tail -n 20 "$log" >&2 || true
exit 1
