#!/usr/bin/env bash
# Stop the single-node cluster that start-single-node.sh started from STATE_DIR: cancel its jobs, shut
# slurmctld and slurmd down, stop munged, and wait until each of those processes (named by the pid files
# in STATE_DIR, and only those) has exited; one still there after 10 s is killed. --purge then removes
# STATE_DIR (its logs included).
#
#   scripts/slurm/stop-single-node.sh [STATE_DIR] [--purge]      # default /run/attnlab-slurm
set -uo pipefail

state=/run/attnlab-slurm
purge=0
for arg in "$@"; do
  case $arg in
    --purge) purge=1 ;;
    *) state=$arg ;;
  esac
done
export SLURM_CONF=$state/slurm.conf

# the pid in DAEMON.pid, if that process still runs and is DAEMON (a stale file's pid may have been
# reused by another process; a zombie waiting for its parent counts as gone; a daemon removes its pid
# file as it exits, so the file may vanish between two looks)
running() {
  local pid
  pid=$(cat "$1" 2>/dev/null) && [[ $pid =~ ^[0-9]+$ ]] || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$(basename "$1" .pid)" ] || return 1
  [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ] && echo "$pid"
}

# ask the daemon of a pid file to stop (if it still runs), wait up to 10 s, then kill it
stop() {
  local pid deadline=$((SECONDS + 10))
  pid=$(running "$1") && kill -TERM "$pid" 2>/dev/null
  while running "$1" >/dev/null && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  if pid=$(running "$1"); then
    echo "stop-single-node.sh: $(basename "$1" .pid) ignored the request to stop; killing it" >&2
    kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$1"
}

if [ -f "$SLURM_CONF" ] && running "$state/slurmctld.pid" >/dev/null; then
  jobs=$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')
  [ -z "$jobs" ] || scancel $jobs
  deadline=$((SECONDS + 10))
  while [ -n "$(squeue -h -o %A 2>/dev/null)" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
  scontrol shutdown >/dev/null 2>&1 || true  # slurmctld tells slurmd to stop too
fi
for daemon in slurmd slurmctld munged; do  # munged last: the others use it to sign their messages
  stop "$state/$daemon.pid"
done
[ $purge = 0 ] || rm -rf "$state"
echo "single-node Slurm in $state stopped" >&2
