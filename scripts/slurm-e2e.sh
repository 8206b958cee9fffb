#!/usr/bin/env bash
# End to end on a real Slurm: start a throwaway single-node Slurm (munged,
# slurmctld and slurmd, every file in a temporary directory, non-default
# ports), submit the job array `slotsim sweep --emit slurm` prints for a
# small plan, wait for it, merge the shards, and check the merged table is
# byte for byte the one a local run of the same plan gives. Stops the
# daemons (by their pid files) and removes the directory on exit.
#
# Needs root and the distribution's Slurm and MUNGE packages:
#   apt-get install slurm-wlm munge
#   scripts/slurm-e2e.sh
#
# Not part of CI (it starts daemons); see docs/sweeps.md.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD
bin=${SLOTSIM:-$root/target/release/slotsim}
[ -x "$bin" ] || cargo build --release
for cmd in munged slurmctld slurmd sbatch sinfo; do
    command -v "$cmd" >/dev/null || { echo "error: $cmd not found; install slurm-wlm and munge" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "error: run as root (the daemons need it)" >&2; exit 1; }

t=$(mktemp -d /tmp/slotsim-slurm.XXXXXX)
chmod 755 "$t"
stop() {
    for p in slurmd slurmctld munged; do
        [ -f "$t/$p.pid" ] && kill "$(cat "$t/$p.pid")" 2>/dev/null || true
    done
    sleep 1
    [ -n "${KEEP:-}" ] || rm -rf "$t"
}
trap stop EXIT
step() { printf '\n==> %s\n' "$*"; }

step "munged (key and socket in $t)"
dd if=/dev/urandom of="$t/munge.key" bs=1024 count=1 status=none
chmod 400 "$t/munge.key"
munged --force --key-file="$t/munge.key" --socket="$t/munge.sock" \
    --pid-file="$t/munged.pid" --log-file="$t/munged.log" --seed-file="$t/munged.seed"

step "slurm.conf"
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$t/state" "$t/spool"
cat > "$t/slurm.conf" <<EOF
ClusterName=slotsim-e2e
SlurmctldHost=$host
SlurmctldPort=17817
SlurmdPort=17818
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$t/munge.sock
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/slurmctld.log
SlurmdLogFile=$t/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
JobCompType=jobcomp/none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=e2e Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$t/slurm.conf
cat "$SLURM_CONF"

step "slurmctld and slurmd"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 1 60); do
    state=$(sinfo -h -o %T 2>/dev/null || true)
    case "$state" in idle*|mix*|alloc*) break ;; esac
    sleep 1
done
sinfo
case "$(sinfo -h -o %T)" in idle*|mix*|alloc*) ;; *) echo "error: the node never came up" >&2; tail -20 "$t"/slurm*.log >&2; exit 1 ;; esac

step "a small plan"
cat > "$t/plan.toml" <<EOF
scenarios = ["$root/scenarios/quickstart.toml", "$root/scenarios/omo-set-a.toml"]
policies = ["fair", "fifo", "fair[slowstart=1]"]
seeds = 4
[overrides]
"tasks.duration_cv" = [0.0, 0.2]
EOF
cat "$t/plan.toml"

step "the job array slotsim emits (3 shards)"
"$bin" sweep "$t/plan.toml" --emit slurm --shards 3 --out "$t/out" > "$t/sweep.sh"
cat "$t/sweep.sh"

step "sbatch --wait"
mkdir -p "$t/out"
(cd "$t" && SLOTSIM=$bin sbatch --wait "$t/sweep.sh")
sacct_state=$(squeue -h | wc -l)
ls -l "$t/out"
for f in "$t"/slotsim-sweep-*.log; do echo "--- $f"; cat "$f"; done

step "merge the cluster's shards, and a local run of the same plan"
"$bin" merge "$t/out" > "$t/cluster.txt"
"$bin" sweep "$t/plan.toml" --out "$t/local"
"$bin" merge "$t/local" > "$t/local.txt"
head -20 "$t/cluster.txt"
if cmp "$t/cluster.txt" "$t/local.txt"; then
    echo "ok: the merged Slurm sweep equals the local run ($(grep -c ' seeds)' "$t/cluster.txt") groups, $sacct_state jobs left in the queue)"
else
    diff "$t/cluster.txt" "$t/local.txt" | head -20
    echo "error: the Slurm sweep and the local run differ" >&2
    exit 1
fi
