#!/usr/bin/env bash
# Stop the private Slurm cluster that .ci/slurm-up.sh started: its jobs, then
# exactly the slurmds, slurmctld and munged whose pids are in its own pid files
# under CODEFRONTIER_SLURM_DIR (default /tmp/codefrontier-slurm), and remove the two
# namespaced nodes' namespaces, veth pairs, bridge and /etc/netns/cfnode* files. No
# other Slurm or MUNGE daemon on the machine is touched. The directory (config, state,
# logs, key) stays; delete it by hand for a clean slate.
#   --keep-munge   leave munged running (slurm-up.sh uses it to restart Slurm alone)
set -euo pipefail

dir=${CODEFRONTIER_SLURM_DIR:-/tmp/codefrontier-slurm}
keep_munge=0
[ "${1:-}" = "--keep-munge" ] && keep_munge=1

# stop PIDFILE NAME: SIGTERM the pid in PIDFILE if it is a live NAME, wait, then SIGKILL
stop() {
    local pidfile=$1 name=$2 pid
    if [ ! -s "$pidfile" ]; then
        echo "$name: not running (no $pidfile)"
        return 0
    fi
    pid=$(cat "$pidfile")
    if ! [[ $pid =~ ^[0-9]+$ ]] || [ "$(cat "/proc/$pid/comm" 2>/dev/null)" != "$name" ]; then
        echo "$name: not running (stale $pidfile)"
        rm -f "$pidfile"
        return 0
    fi
    kill -TERM "$pid"
    for _ in $(seq 60); do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ] || break
        sleep 0.5
    done
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$name" ]; then
        kill -KILL "$pid" 2>/dev/null || true
        echo "$name: killed (pid $pid)"
    else
        echo "$name: stopped (pid $pid)"
    fi
    rm -f "$pidfile"
}

if [ -f "$dir/slurm.conf" ] && [ -s "$dir/run/slurmctld.pid" ]; then
    # this cluster's jobs only (SLURM_CONF), so that no job step outlives slurmd
    export SLURM_CONF=$dir/slurm.conf
    jobs=$(timeout 20 squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
        # shellcheck disable=SC2086
        timeout 20 scancel $jobs || true
        sleep 2
    fi
fi

for pidfile in "$dir"/run/slurmd*.pid; do
    if [ -e "$pidfile" ]; then stop "$pidfile" slurmd; fi
done
stop "$dir/run/slurmctld.pid" slurmctld
for node in cfnode1 cfnode2; do
    if [ -e "/run/netns/$node" ]; then ip netns delete "$node"; fi
    rm -rf "/etc/netns/$node"
done
for link in cfv1 cfv2 cfbr0; do
    if ip link show "$link" >/dev/null 2>&1; then ip link delete "$link"; fi
done
if [ "$keep_munge" = 0 ]; then
    stop "$dir/munge/munged.pid" munged
fi
