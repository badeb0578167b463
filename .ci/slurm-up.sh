#!/usr/bin/env bash
# Start a private Slurm cluster on this machine (Debian, root, no systemd) for the Slurm
# tests (tests/test_slurm.py, tests/test_time_limits.py) and `snakemake --profile slurm`:
# one node, the machine itself (partition `debug`; and `spot`, `spot-cancel` and `urgent`
# for preemption), and two more nodes for multi-node jobs (partition `pair`, and
# partition `gpu`, where each node declares 4 GPUs that are not there: cfnode1 and
# cfnode2), each a slurmd in a network namespace of its own with its own address on a
# bridge (10.217.0.0/24), hostname and /etc/hosts (/etc/netns/NODE/hosts, which
# `ip netns exec` shows as /etc/hosts). Their jobs see two hosts that reach each other
# only over that network, as on a cluster.
#
# Nothing of the machine's own Slurm or MUNGE set-up is used or changed: no
# /etc/slurm, /etc/munge, /var/spool, /var/log or /run. Configuration, state, logs,
# pid files, the MUNGE key and the MUNGE socket all live in one private directory,
#   CODEFRONTIER_SLURM_DIR (default /tmp/codefrontier-slurm),
# and every Slurm command finds the cluster through SLURM_CONF=$DIR/slurm.conf.
# Its own munged (private key, private socket; slurm.conf's AuthInfo=socket=...)
# and its own ports (slurmctld 6917, slurmd 6918; the stock ones are 6817/6818)
# let it run beside a system Slurm cluster and a system munged.
#
# Idempotent: daemons already running from this directory (by its pid files) are
# reused. Stop them with .ci/slurm-down.sh (or `make slurm-down`), which also removes
# the namespaces, the bridge and /etc/netns/cfnode*.
set -euo pipefail

dir=${CODEFRONTIER_SLURM_DIR:-/tmp/codefrontier-slurm}
ctld_port=${CODEFRONTIER_SLURMCTLD_PORT:-6917}
slurmd_port=${CODEFRONTIER_SLURMD_PORT:-6918}
case $dir in /*) ;; *) echo "CODEFRONTIER_SLURM_DIR must be an absolute path: $dir" >&2; exit 1 ;; esac
conf=$dir/slurm.conf
socket=$dir/munge/munge.socket
host=$(hostname -s)
bridge=cfbr0
subnet=10.217.0
pair=(cfnode1 cfnode2)
# the pair's GPUs (partition `gpu`): not real, so that a job's GPU request is checked and
# recorded by Slurm as on a GPU cluster (tests/test_slurm.py); jobs that need one fail
gpus_per_node=4
gpu_type=a100  # what configs/example-1.5b-4gpu.yaml asks for (gpu_model)
# preemption (tests/test_time_limits.py): a job of partition `urgent` preempts the jobs of
# `spot` (requeued, warned by SIGTERM this many seconds before their time is up) and of
# `spot-cancel` (cancelled without grace: SIGTERM, then SIGKILL after KillWait) on this
# machine; jobs of the other partitions are never preempted
grace_seconds=30

echo "starting a private Slurm cluster (this machine and two namespaced nodes): config and state in $dir" \
     "(SLURM_CONF=$conf), daemons munged (socket $socket), slurmctld (port $ctld_port)" \
     "and slurmd (port $slurmd_port) on $host; stop it with .ci/slurm-down.sh"

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null \
   || ! command -v sbatch >/dev/null || ! command -v munged >/dev/null \
   || ! command -v ip >/dev/null || ! command -v unshare >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurmctld slurmd slurm-client munge iproute2 util-linux >/dev/null
fi

# The directory: root's, and writable by nobody else (the daemons run as root from
# what is in it, and it may sit in the world-writable /tmp).
mkdir -p "$dir"
if [ -L "$dir" ] || [ "$(stat -c %u "$dir")" != "$(id -u)" ]; then
    echo "$dir is a link or not owned by $(id -un): refusing to use it" >&2
    exit 1
fi
chmod 755 "$dir"
mkdir -p "$dir/munge" "$dir/slurmctld" "$dir/slurmd" "$dir/log" "$dir/run"

# pid_alive PIDFILE NAME: the process in the pid file is alive, not a zombie, and is NAME
pid_alive() {
    local pid
    [ -s "$1" ] || return 1
    pid=$(cat "$1")
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ] || return 1
    ! grep -q '^State:[[:space:]]*Z' "/proc/$pid/status" 2>/dev/null
}

# wait_pid PIDFILE NAME: the daemon has forked and written its pid file (up to 20 s)
wait_pid() {
    for _ in $(seq 40); do
        pid_alive "$1" "$2" && return 0
        sleep 0.5
    done
    echo "$2 did not start (no live process in $1)" >&2
    return 1
}

# port_taken PORT: something already listens on it (and it is not ours)
port_taken() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# a cluster that an older version of this script started (one slurmd, run/slurmd.pid)
# goes first: its configuration changes
if pid_alive "$dir/run/slurmd.pid" slurmd; then
    echo "stopping the cluster of an older slurm-up.sh"
    CODEFRONTIER_SLURM_DIR=$dir bash "$(dirname "$0")/slurm-down.sh" --keep-munge
fi

# our ports must be free unless our own daemons hold them (before anything starts)
for daemon in slurmctld:slurmctld:"$ctld_port":CODEFRONTIER_SLURMCTLD_PORT \
              slurmd:"slurmd-$host":"$slurmd_port":CODEFRONTIER_SLURMD_PORT; do
    IFS=: read -r name pidfile port variable <<<"$daemon"
    if ! pid_alive "$dir/run/$pidfile.pid" "$name" && port_taken "$port"; then
        echo "port $port (for $name) is taken by another program: choose another with $variable" >&2
        exit 1
    fi
done

# munge: a private key, socket, pid, seed and log file, munged as the munge user
munge_dir=$dir/munge
if [ ! -s "$munge_dir/munge.key" ]; then
    mungekey --create --keyfile="$munge_dir/munge.key" 2>/dev/null \
        || dd if=/dev/urandom bs=1 count=1024 of="$munge_dir/munge.key" status=none
fi
chown -R munge:munge "$munge_dir"
chmod 755 "$munge_dir"                 # clients (sbatch, srun, ...) reach the socket
chmod 400 "$munge_dir/munge.key"
if pid_alive "$munge_dir/munged.pid" munged; then
    echo "munged: already running (pid $(cat "$munge_dir/munged.pid"))"
else
    rm -f "$socket" "$socket.lock"
    runuser -u munge -- /usr/sbin/munged --socket="$socket" \
        --key-file="$munge_dir/munge.key" --pid-file="$munge_dir/munged.pid" \
        --seed-file="$munge_dir/munged.seed" --log-file="$munge_dir/munged.log"
    wait_pid "$munge_dir/munged.pid" munged
    echo "munged: started (pid $(cat "$munge_dir/munged.pid"))"
fi
munge -n --socket="$socket" | unmunge --socket="$socket" >/dev/null

# slurm.conf sized from what slurmd detects (RealMemory a little below it)
cpus=$(nproc)
memory=$(SLURM_CONF=/dev/null slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
memory=$(( memory * 9 / 10 ))
new_conf=$(cat <<CONF
# written by .ci/slurm-up.sh: codefrontier's private test cluster (all paths in $dir)
ClusterName=codefrontier-ci
SlurmctldHost=${host}
SlurmctldPort=${ctld_port}
SlurmdPort=${slurmd_port}
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=${socket}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ReturnToService=2
MinJobAge=600
SlurmctldPidFile=${dir}/run/slurmctld.pid
SlurmdPidFile=${dir}/run/slurmd-%n.pid
SlurmdSpoolDir=${dir}/slurmd/%n
StateSaveLocation=${dir}/slurmctld
SlurmctldLogFile=${dir}/log/slurmctld.log
SlurmdLogFile=${dir}/log/slurmd-%n.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=${host} CPUs=${cpus} RealMemory=${memory} State=UNKNOWN
GresTypes=gpu
NodeName=${pair[0]} NodeAddr=${subnet}.11 CPUs=${cpus} RealMemory=$(( memory / 2 )) Gres=gpu:${gpu_type}:${gpus_per_node} State=UNKNOWN
NodeName=${pair[1]} NodeAddr=${subnet}.12 CPUs=${cpus} RealMemory=$(( memory / 2 )) Gres=gpu:${gpu_type}:${gpus_per_node} State=UNKNOWN
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
PartitionName=debug Nodes=${host} Default=YES MaxTime=INFINITE State=UP PreemptMode=OFF
PartitionName=pair Nodes=${pair[0]},${pair[1]} MaxTime=INFINITE State=UP PreemptMode=OFF
PartitionName=gpu Nodes=${pair[0]},${pair[1]} MaxTime=INFINITE State=UP PreemptMode=OFF
PartitionName=spot Nodes=${host} MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=REQUEUE GraceTime=${grace_seconds}
PartitionName=spot-cancel Nodes=${host} MaxTime=INFINITE State=UP PriorityTier=1 PreemptMode=CANCEL
PartitionName=urgent Nodes=${host} MaxTime=INFINITE State=UP PriorityTier=2 PreemptMode=OFF
CONF
)
export SLURM_CONF=$conf
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$new_conf" ]; then
    # a changed configuration: daemons still running on the old one go first
    if pid_alive "$dir/run/slurmctld.pid" slurmctld || pid_alive "$dir/run/slurmd-$host.pid" slurmd; then
        echo "slurm.conf changed: restarting slurmctld and slurmd"
        CODEFRONTIER_SLURM_DIR=$dir bash "$(dirname "$0")/slurm-down.sh" --keep-munge
    fi
    printf '%s\n' "$new_conf" > "$conf"
fi
# each pair node's GPUs: character devices that read as /dev/null (Slurm checks a GPU's
# device file; nothing opens it), so a job's GPU request is checked and recorded by Slurm
mkdir -p "$dir/dev"
for index in $(seq 0 $((gpus_per_node - 1))); do
    [ -c "$dir/dev/gpu$index" ] || mknod "$dir/dev/gpu$index" c 1 3
done
printf 'NodeName=%s,%s Name=gpu Type=%s File=%s/dev/gpu[0-%s]\n' "${pair[0]}" "${pair[1]}" \
    "$gpu_type" "$dir" "$((gpus_per_node - 1))" > "$dir/gres.conf.new"
mv -f "$dir/gres.conf.new" "$dir/gres.conf"

# $DIR/bin: the client commands, each pinned to this cluster's slurm.conf. Needed for
# the `srun` that snakemake-executor-plugin-slurm-jobstep starts inside each job: it
# strips SLURM_* variables (SLURM_CONF among them) from that srun's environment, which
# would then ask the machine's own cluster (/etc/slurm/slurm.conf). Put $DIR/bin first
# on PATH (tests/test_slurm.py does) and the jobs' srun stays on this cluster.
mkdir -p "$dir/bin"
for command in srun sbatch squeue scancel sinfo scontrol sacct; do
    real=$(PATH=$(printf '%s' "$PATH" | tr ':' '\n' | grep -vxF "$dir/bin" | paste -sd:) \
           command -v "$command" || true)
    [ -n "$real" ] || continue
    printf '#!/bin/sh\n# %s on the private cluster of .ci/slurm-up.sh\nSLURM_CONF=%q exec %q "$@"\n' \
        "$command" "$conf" "$real" > "$dir/bin/$command.new"
    chmod 755 "$dir/bin/$command.new"
    mv -f "$dir/bin/$command.new" "$dir/bin/$command"
done

if pid_alive "$dir/run/slurmctld.pid" slurmctld; then
    echo "slurmctld: already running (pid $(cat "$dir/run/slurmctld.pid"))"
else
    slurmctld -f "$conf"
    wait_pid "$dir/run/slurmctld.pid" slurmctld
    echo "slurmctld: started (pid $(cat "$dir/run/slurmctld.pid"))"
fi
mkdir -p "$dir/slurmd/$host"
if pid_alive "$dir/run/slurmd-$host.pid" slurmd; then
    echo "slurmd ($host): already running (pid $(cat "$dir/run/slurmd-$host.pid"))"
else
    slurmd -f "$conf" -N "$host"
    wait_pid "$dir/run/slurmd-$host.pid" slurmd
    echo "slurmd ($host): started (pid $(cat "$dir/run/slurmd-$host.pid"))"
fi

# The two namespaced nodes: a bridge on the host, a veth pair and a namespace per node.
ip link show "$bridge" >/dev/null 2>&1 || ip link add "$bridge" type bridge
# `replace`, not `add`: idempotent where a previous run left the address (and no
# `... | grep -q` test, which under pipefail fails at random when grep quits early)
ip addr replace "$subnet.1/24" dev "$bridge"
ip link set "$bridge" up
hosts=$(printf '127.0.0.1 localhost\n%s.1 %s\n%s.11 %s\n%s.12 %s\n' \
        "$subnet" "$host" "$subnet" "${pair[0]}" "$subnet" "${pair[1]}")
# the host's cgroup mounts, which slurmd needs and `ip netns exec` hides under a new /sys
awk '$3 ~ /^cgroup/ {print $1, $2, $3, $4}' /proc/self/mounts > "$dir/cgroup.mounts"
for index in 1 2; do
    node=${pair[$((index - 1))]}
    [ -e "/run/netns/$node" ] || ip netns add "$node"
    if ! ip -n "$node" link show eth0 >/dev/null 2>&1; then
        # a veth left from an earlier namespace of this name leads nowhere: replace it
        ip link delete "cfv$index" >/dev/null 2>&1 || true
        ip link add "cfv$index" type veth peer name eth0 netns "$node"
    fi
    ip link set "cfv$index" master "$bridge" up
    ip -n "$node" addr replace "$subnet.1$index/24" dev eth0
    ip -n "$node" link set eth0 up
    ip -n "$node" link set lo up
    mkdir -p "/etc/netns/$node" "$dir/slurmd/$node"
    printf '%s\n' "$hosts" > "/etc/netns/$node/hosts"
    if pid_alive "$dir/run/slurmd-$node.pid" slurmd; then
        echo "slurmd ($node): already running (pid $(cat "$dir/run/slurmd-$node.pid"))"
    else
        ip netns exec "$node" unshare --uts sh -c '
            hostname "$1"
            mount -t tmpfs -o mode=755 cgroup-root /sys/fs/cgroup
            while read -r source target fstype options; do
                mkdir -p "$target" && mount -t "$fstype" -o "$options" "$source" "$target"
            done < "$3"
            exec slurmd -f "$2" -N "$1"' node "$node" "$conf" "$dir/cgroup.mounts"
        wait_pid "$dir/run/slurmd-$node.pid" slurmd
        echo "slurmd ($node): started (pid $(cat "$dir/run/slurmd-$node.pid")), $subnet.1$index"
    fi
done

for _ in $(seq 60); do
    # a node drained under an earlier configuration (its saved state) comes back; one that
    # still does not match this one is drained again at once
    for node in "${pair[@]}"; do
        if sinfo -h -n "$node" -o '%t' 2>/dev/null | grep -q '^drain'; then
            scontrol update NodeName="$node" State=RESUME 2>/dev/null || true
        fi
    done
    # one line per node and partition: count each node once
    if [ "$(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | grep -cE ' (idle|mix|alloc)$')" = 3 ]; then
        sinfo
        echo "use it with: export SLURM_CONF=$conf (Snakemake jobs also need PATH=$dir/bin:\$PATH)"
        exit 0
    fi
    sleep 1
done
echo "slurm did not come up" >&2
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" "$munge_dir/munged.log" >&2 || true
exit 1
