#!/usr/bin/env bash
# Start a single-node SLURM cluster (munge, slurmctld, slurmd) with two fake GPUs of type a100,
# everything under one sandbox folder. Usage: start-cluster.sh SANDBOX
# Writes SANDBOX/env.sh (SLURM_CONF and PATH to source before sbatch/squeue or Snakemake) and one
# pid file per daemon under SANDBOX/run; stop-cluster.sh stops each daemon by that PID.
# Needs root (mknod, daemons running as root) and Debian's slurm-wlm/munge packages.
set -euo pipefail
sandbox=$(realpath -m "${1:?usage: start-cluster.sh SANDBOX}")
mkdir -p "$sandbox"/{etc,run,log,bin,var/state,var/spool/slurmd}

# The node advertises 4 CPUs whatever the machine has (SlurmdParameters=config_overrides), so
# that a 2-thread job and a GPU job can run side by side on a 2-core CI machine.
cpus=4
memory_mb=$(awk '/MemTotal/ {printf "%d", $2 / 1024 * 0.8}' /proc/meminfo)

# Fake GPUs: character devices (slurmd rejects plain files), the null device's numbers.
for index in 0 1; do
    [ -c "$sandbox/fakegpu$index" ] || mknod "$sandbox/fakegpu$index" c 1 3
done

cat > "$sandbox/etc/slurm.conf" <<CONF
ClusterName=ci
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$sandbox/run/munge.socket
CredType=cred/munge
StateSaveLocation=$sandbox/var/state
SlurmdSpoolDir=$sandbox/var/spool/slurmd
SlurmctldPidFile=$sandbox/run/slurmctld.pid
SlurmdPidFile=$sandbox/run/slurmd.pid
SlurmctldLogFile=$sandbox/log/slurmctld.log
SlurmdLogFile=$sandbox/log/slurmd.log
SlurmctldPort=$((6817 + RANDOM % 1000 * 2))
SlurmdPort=$((6818 + RANDOM % 1000 * 2))
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=1
GresTypes=gpu
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory_mb Gres=gpu:a100:2 State=UNKNOWN
PartitionName=cpu Nodes=localhost Default=YES MaxTime=600 State=UP
PartitionName=gpu Nodes=localhost MaxTime=600 State=UP
CONF
cat > "$sandbox/etc/gres.conf" <<CONF
NodeName=localhost Name=gpu Type=a100 File=$sandbox/fakegpu[0-1]
CONF

# The job step strips SLURM_CONF before its nested srun: a wrapper first on PATH puts it back.
cat > "$sandbox/bin/srun" <<WRAP
#!/bin/sh
SLURM_CONF=$sandbox/etc/slurm.conf exec /usr/bin/srun "\$@"
WRAP
chmod +x "$sandbox/bin/srun"
cat > "$sandbox/env.sh" <<ENV
export SLURM_CONF=$sandbox/etc/slurm.conf
export PATH=$sandbox/bin:\$PATH
ENV
export SLURM_CONF=$sandbox/etc/slurm.conf

[ -f "$sandbox/etc/munge.key" ] || mungekey --create --keyfile="$sandbox/etc/munge.key" >/dev/null
munged --force --socket="$sandbox/run/munge.socket" --key-file="$sandbox/etc/munge.key" \
    --pid-file="$sandbox/run/munged.pid" --log-file="$sandbox/log/munged.log" \
    --seed-file="$sandbox/run/munge.seed"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF" -N localhost

for _ in $(seq 1 60); do
    state=$(sinfo --noheader --partition=cpu --format=%T 2>/dev/null || true)
    if [ "$state" = "idle" ]; then
        echo "SLURM cluster up: $SLURM_CONF ($cpus CPUs, ${memory_mb} MB, 2 fake GPUs)"
        exit 0
    fi
    sleep 0.5
done
echo "the SLURM node did not become idle (state: '${state:-none}'); logs in $sandbox/log" >&2
tail -n 20 "$sandbox"/log/*.log >&2 || true
exit 1
