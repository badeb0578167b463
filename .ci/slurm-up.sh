#!/usr/bin/env bash
# Start a real single-node Slurm cluster on this machine (Debian, root, no systemd),
# for CI's Slurm run of the smoke workflow. Idempotent: a running cluster is kept.
set -euo pipefail

host=$(hostname -s)

if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq slurmctld slurmd slurm-client munge >/dev/null
fi

running() {  # a daemon counts as running only if its process is alive and not a zombie
    local state
    state=$(ps -C "$1" -o stat= 2>/dev/null | grep -v '^Z' | head -n1 || true)
    [ -n "$state" ]
}

# munge: its key, its run directory, and the daemon as the munge user
if [ ! -s /etc/munge/munge.key ]; then
    mkdir -p /etc/munge
    dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key status=none
fi
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge /var/log/munge /var/lib/munge
chown munge:munge /run/munge /var/log/munge /var/lib/munge
running munged || runuser -u munge -- /usr/sbin/munged

# slurm.conf sized from what slurmd detects (RealMemory a little below it)
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
cpus=$(nproc)
memory=$(slurmd -C | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p')
memory=$(( memory * 9 / 10 ))
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=codefrontier-ci
SlurmctldHost=${host}
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1000
ReturnToService=2
MinJobAge=600
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmdSpoolDir=/var/spool/slurmd
StateSaveLocation=/var/spool/slurmctld
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=${host} CPUs=${cpus} RealMemory=${memory} State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF

running slurmctld || slurmctld
running slurmd || slurmd

for _ in $(seq 60); do
    if sinfo -h -N -o '%t' 2>/dev/null | grep -qE '^(idle|mix|alloc)'; then
        sinfo
        exit 0
    fi
    sleep 1
done
echo "slurm did not come up" >&2
tail -n 20 /var/log/slurm/slurmctld.log /var/log/slurm/slurmd.log >&2 || true
exit 1
