#!/usr/bin/env bash
# Start a throwaway single-node Slurm cluster on this machine, as root: this host is both the controller
# and the only compute node, with the cores and memory `slurmd -C` finds here. Everything the cluster
# writes (its slurm.conf, a fresh munge key, sockets, state, logs, pid files) lives in STATE_DIR, so the
# system's own /etc/slurm and munged are never touched; every address is 127.0.0.1.
#
#   scripts/slurm/start-single-node.sh [STATE_DIR]      # default /run/attnlab-slurm
#   export SLURM_CONF=STATE_DIR/slurm.conf              # then sbatch, squeue, sinfo talk to it
#   scripts/slurm/stop-single-node.sh [STATE_DIR]       # cancels its jobs, stops every daemon it started
#
# Needs Debian's slurm-wlm and munge (installs nothing itself):
#   apt-get install --no-install-recommends slurm-wlm munge
# Written for Slurm 22.05 (Debian 12). Ports: ATTNLAB_SLURMCTLD_PORT (6817) and ATTNLAB_SLURMD_PORT (6818),
# refused if something already listens there. Returns once `sinfo` shows the node idle (or fails, stopping
# what it started, and prints the daemons' logs).
set -euo pipefail
PATH=$PATH:/usr/sbin:/sbin  # the daemons live in sbin, which not every root PATH names

state=${1:-/run/attnlab-slurm}
ctld_port=${ATTNLAB_SLURMCTLD_PORT:-6817}
slurmd_port=${ATTNLAB_SLURMD_PORT:-6818}
here=$(cd "$(dirname "$0")" && pwd)
node=localhost
wait_s=60

die() { echo "start-single-node.sh: $*" >&2; exit 1; }

check_prerequisites() {
  [ "$(id -u)" = 0 ] || die "run me as root: slurmd runs jobs as their submitter and needs root for that"
  local missing=()
  for tool in munged slurmctld slurmd sbatch sinfo scontrol; do
    command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
  done
  [ ${#missing[@]} = 0 ] || die "${missing[*]} not found: apt-get install --no-install-recommends slurm-wlm munge"
  if [ -s "$state/slurmctld.pid" ] && kill -0 "$(cat "$state/slurmctld.pid")" 2>/dev/null; then
    die "a cluster from $state is already running: scripts/slurm/stop-single-node.sh $state stops it"
  fi
  for port in "$ctld_port" "$slurmd_port"; do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "something already listens on 127.0.0.1:$port (another Slurm?); stop it, or set" \
          "ATTNLAB_SLURMCTLD_PORT / ATTNLAB_SLURMD_PORT"
    fi
  done
}

# The node line from what slurmd detects here (CPUs, sockets, cores, threads, RealMemory), renamed to
# localhost: NodeName must match the name slurmd is started with (-N), and its address is loopback.
node_line() {
  slurmd -C | sed -n 's/^NodeName=[^ ]* /NodeName='"$node"' NodeAddr=127.0.0.1 /p'
}

write_conf() {
  local line cpus memory
  line=$(node_line)
  [ -n "$line" ] || die "slurmd -C printed no NodeName line"
  cpus=$(sed -n 's/.* CPUs=\([0-9]*\).*/\1/p' <<<"$line")
  memory=$(sed -n 's/.* RealMemory=\([0-9]*\).*/\1/p' <<<"$line")
  # keys as documented in slurm.conf(5) of Slurm 22.05; no cgroups, accounting or MPI: a job is
  # tracked by its process tree (proctrack/linuxproc), a job's memory is the node's share per CPU, and
  # a job whose dependency failed (the merge after a failed shard) is cancelled rather than left pending;
  # both daemons listen on 127.0.0.1 only (CommunicationParameters), not on every address
  cat >"$state/slurm.conf" <<CONF
ClusterName=attnlab
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$state/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$state/slurmctld
SlurmdSpoolDir=$state/slurmd
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/slurmctld.log
SlurmdLogFile=$state/slurmd.log
MailProg=/bin/true
CommunicationParameters=NoCtldInAddrAny,NoInAddrAny
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
DependencyParameters=kill_invalid_depend
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=$((memory / cpus))
ReturnToService=2
$line
PartitionName=attnlab Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
}

start_munged() {
  # a fresh key for this cluster alone; munged checks that only its owner can read it
  (umask 077 && head -c 1024 /dev/urandom >"$state/munge.key")
  munged --key-file="$state/munge.key" --socket="$state/munge.socket" --pid-file="$state/munged.pid" \
         --log-file="$state/munged.log" --seed-file="$state/munged.seed"
}

wait_until_idle() {
  local deadline=$((SECONDS + wait_s)) status=""
  while [ $SECONDS -lt $deadline ]; do
    status=$(SLURM_CONF="$state/slurm.conf" sinfo -h -N -n "$node" -o %T 2>/dev/null || true)
    [ "$status" = idle ] && return 0
    sleep 0.5
  done
  echo "start-single-node.sh: node $node is '${status:-not answering}' after ${wait_s} s; logs follow" >&2
  tail -n 20 "$state"/*.log >&2 || true
  return 1
}

check_prerequisites
mkdir -p "$state/slurmctld" "$state/slurmd"
chmod 755 "$state"
# from here on, a failure stops whatever was started (an EXIT trap: set -e in a function skips ERR traps)
trap 'status=$?; [ $status = 0 ] || "$here/stop-single-node.sh" "$state" || true; exit $status' EXIT
write_conf
start_munged
slurmctld -f "$state/slurm.conf"
slurmd -f "$state/slurm.conf" -N "$node"
wait_until_idle
echo "single-node Slurm is up: export SLURM_CONF=$state/slurm.conf" >&2
