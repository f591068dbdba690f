#!/usr/bin/env bash
# Stop the daemons started by start-cluster.sh, each by the PID in its pid file.
# Usage: stop-cluster.sh SANDBOX
set -uo pipefail
sandbox=$(realpath -m "${1:?usage: stop-cluster.sh SANDBOX}")
for daemon in slurmd slurmctld munged; do
    pidfile="$sandbox/run/$daemon.pid"
    [ -f "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        for _ in $(seq 1 50); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
    fi
    rm -f "$pidfile"
done
