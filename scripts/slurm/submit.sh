#!/usr/bin/env bash
# Grade a class on Slurm: a job array of N shards (grade-array.sbatch), then one merge job that starts
# when every shard succeeded (merge.sbatch). Results: OUT/all (as one grade.py run with the same seed
# would write them), OUT/shard-I per shard, Slurm's logs in OUT/logs.
#
#   scripts/slurm/submit.sh --shards N --out OUT [--seed-file FILE] [--cpus-per-task C] SUBMISSION...
#
# FILE (default ~/.attnlab-seed) holds the secret seed, one integer; make one with
#   (umask 077; python3 -c 'import secrets; print(secrets.randbits(62))' > ~/.attnlab-seed)
# C (default 2) is each shard's CPUs and its grade.py --jobs. The partition, account and time limit come
# from Slurm's own variables (SBATCH_PARTITION, SBATCH_ACCOUNT, SBATCH_TIMELIMIT). ATTNLAB_PYTHON picks the
# interpreter (default: this checkout's .venv/bin/python, else python3). Prints "ARRAY_JOB MERGE_JOB".
set -euo pipefail

die() { echo "submit.sh: $*" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
shards="" out="" seed_file=~/.attnlab-seed cpus=2
while [ $# -gt 0 ]; do
  case $1 in
    --shards) shards=${2:-}; shift 2 ;;
    --out) out=${2:-}; shift 2 ;;
    --seed-file) seed_file=${2:-}; shift 2 ;;
    --cpus-per-task) cpus=${2:-}; shift 2 ;;
    --) shift; break ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[[ $shards =~ ^[1-9][0-9]*$ ]] || die "--shards wants a number of shards (at least 1), got '${shards}'"
[[ $cpus =~ ^[1-9][0-9]*$ ]] || die "--cpus-per-task wants a number of CPUs, got '${cpus}'"
[ -n "$out" ] || die "--out DIR is required"
[ $# -gt 0 ] || die "name the submissions to grade (directories or .zip files)"
[ -r "$seed_file" ] || die "$seed_file not found: write a secret seed there (see the top of $0)"
[[ $(cat "$seed_file") =~ ^[0-9]+$ ]] || die "$seed_file must hold one non-negative integer"

python=${ATTNLAB_PYTHON:-$repo/.venv/bin/python}
[ -x "$python" ] || [ -n "${ATTNLAB_PYTHON:-}" ] || python=$(command -v python3 || true)
[ -x "$python" ] || die "$python is not an executable Python: set ATTNLAB_PYTHON"
# the jobs run elsewhere, later, in the repo: every path they get is absolute; -s keeps symlinks as they
# are (a venv's python is one, and a submission's name is the name it is given, not its target's)
python=$(realpath -s "$python")
out=$(realpath -sm "$out")
seed_file=$(realpath -s "$seed_file")
submissions=()
for s in "$@"; do
  [ -e "$s" ] || die "$s: no such submission"
  submissions+=("$(realpath -s "$s")")
done
mkdir -p "$out/logs"
# the jobs get this environment (--export=ALL: a path with a comma would break --export=NAME=VALUE)
export ATTNLAB_REPO=$repo ATTNLAB_PYTHON=$python

array=$(sbatch --parsable --array="0-$((shards - 1))" --cpus-per-task="$cpus" --export=ALL \
    --output="$out/logs/grade-%A_%a.log" "$here/grade-array.sbatch" "$shards" "$out" "$seed_file" "${submissions[@]}")
array=${array%%;*}  # --parsable prints JOBID[;CLUSTER]
merge=$(sbatch --parsable --dependency="afterok:$array" --export=ALL \
    --output="$out/logs/merge-%j.log" "$here/merge.sbatch" "$shards" "$out")
merge=${merge%%;*}
echo "submitted ${#submissions[@]} submissions in $shards shards: array job $array, merge job $merge;" \
     "results in $out/all (squeue -j $array,$merge to watch)" >&2
echo "$array $merge"
