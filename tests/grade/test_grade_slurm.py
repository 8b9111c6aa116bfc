"""Past one machine, for real: a single-node Slurm cluster (scripts/slurm/start-single-node.sh, as root)
grades a class as a job array of shards followed by a dependent merge job (scripts/slurm/submit.sh), and
the merged directory holds exactly what one grade.py run with the same seed writes. Needs root and
Debian's slurm-wlm and munge; ATTNLAB_SKIP_SLURM=1 skips it."""

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from system_packages import require, switched_off

from attnlab.core.names import stem_of
from attnlab.grade.batch import cli
from attnlab.grade.batch.merge import TIMING

pytestmark = pytest.mark.e2e  # starts Slurm's daemons and grade.py

REPO = Path(__file__).resolve().parents[2]
SCRIPTS = REPO / "scripts" / "slurm"
EXAMPLES = REPO / "examples" / "submissions"
SHARDS = 3
SEED = 424242
DAEMONS = ("munged", "slurmctld", "slurmd")
JOBS_TIMEOUT_S = 600


def require_slurm() -> None:
    if switched_off("ATTNLAB_SKIP_SLURM") is None and os.geteuid() != 0:
        pytest.skip("starting a Slurm cluster needs root (slurmd runs each job as its submitter)")
    search = f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin"  # where Debian puts the daemons
    missing = [tool for tool in (*DAEMONS, "sbatch", "squeue") if shutil.which(tool, path=search) is None]
    require("slurm-wlm and munge", missing, "apt-get install --no-install-recommends slurm-wlm munge",
            "ATTNLAB_SKIP_SLURM")


def make_class(root: Path) -> list[Path]:
    """The bundled examples, copies of them and of the template under other names, one copy as a zip and
    one upload that is not a zip at all: every shard gets work, and some of it is the same code."""
    root.mkdir()
    for source, name in [("alice_partial", "dana_partial"), ("bob_buggy", "erin_buggy"),
                         ("reference", "fay_reference"), ("untouched_template", "gus_template"),
                         ("untouched_template", "hal_template")]:
        shutil.copytree(EXAMPLES / source, root / name)
    shutil.make_archive(str(root / "ivy_partial"), "zip", EXAMPLES / "alice_partial")
    (root / "jay_broken.zip").write_bytes(b"not a zip at all")
    submissions = sorted(EXAMPLES.iterdir()) + sorted(root.iterdir())
    shards = {cli.shard_of(stem_of(s.name), SHARDS) for s in submissions}
    assert shards == set(range(SHARDS)), f"the class leaves a shard empty: {sorted(shards)}"
    return submissions


def alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie waiting for its parent to reap it has stopped)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@contextlib.contextmanager
def single_node_cluster():
    """Start a cluster, yield the environment that reaches it, stop it and check that every daemon it
    started has exited. Its state is under /run, not tmp_path: munged refuses a socket whose directories
    other users cannot traverse, and pytest's are private."""
    state = Path(tempfile.mkdtemp(prefix="attnlab-slurm-test-", dir="/run"))
    state.chmod(0o755)
    pids = {}
    try:
        started = subprocess.run([str(SCRIPTS / "start-single-node.sh"), str(state)], capture_output=True,
                                 text=True, timeout=120)
        assert started.returncode == 0, f"the cluster did not start:\n{started.stderr}"
        pids = {d: int((state / f"{d}.pid").read_text()) for d in DAEMONS}
        yield {**os.environ, "SLURM_CONF": str(state / "slurm.conf")}
    finally:
        subprocess.run([str(SCRIPTS / "stop-single-node.sh"), str(state), "--purge"], capture_output=True,
                       timeout=120)
        deadline = time.monotonic() + 5
        while any(alive(p) for p in pids.values()) and time.monotonic() < deadline:
            time.sleep(0.1)  # a stopped daemon can take a moment to be reaped
        assert not [d for d, p in pids.items() if alive(p)], f"still running after stop-single-node.sh: {pids}"


def job_states(job: str, env: dict) -> list[str]:
    shown = subprocess.run(["scontrol", "show", "job", job], env=env, capture_output=True, text=True)
    return [word.split("=", 1)[1] for word in shown.stdout.split() if word.startswith("JobState=")]


def wait_for(jobs: list[str], env: dict, logs: Path) -> None:
    deadline = time.monotonic() + JOBS_TIMEOUT_S
    while time.monotonic() < deadline:
        queued = subprocess.run(["squeue", "-h", "-j", ",".join(jobs)], env=env, capture_output=True, text=True)
        if not queued.stdout.strip():
            return
        time.sleep(1)
    pytest.fail(f"jobs {jobs} still queued after {JOBS_TIMEOUT_S} s:\n{queued.stdout}\n{read_logs(logs)}")


def read_logs(logs: Path) -> str:
    return "\n".join(f"--- {p.name}\n{p.read_text()}" for p in sorted(logs.glob("*.log")))


def grade_on_slurm(submissions: list[Path], out: Path, seed_file: Path, env: dict) -> Path:
    """submit.sh over SHARDS shards (one CPU each, so two shards run at once on two cores); the merged dir."""
    submitted = subprocess.run([str(SCRIPTS / "submit.sh"), "--shards", str(SHARDS), "--out", str(out),
                                "--seed-file", str(seed_file), "--cpus-per-task", "1", *map(str, submissions)],
                               env={**env, "ATTNLAB_PYTHON": sys.executable}, capture_output=True, text=True,
                               timeout=60, cwd=out.parent)
    assert submitted.returncode == 0, submitted.stderr
    array, merge = submitted.stdout.split()
    wait_for([array, merge], env, out / "logs")
    states = job_states(array, env) + job_states(merge, env)
    assert states == ["COMPLETED"] * (SHARDS + 1), f"job states {states}:\n{read_logs(out / 'logs')}"
    for index in range(SHARDS):
        assert list((out / f"shard-{index}").glob("*.json")) != [], f"shard {index} graded nothing"
    return out / "all"


def grade_once(submissions: list[Path], out: Path) -> Path:
    subprocess.run([sys.executable, "grade.py", *map(str, submissions), "--seed", str(SEED), "--out", str(out)],
                   cwd=REPO, check=True, capture_output=True, timeout=JOBS_TIMEOUT_S)
    return out


def contents(directory: Path) -> dict[str, object]:
    """Every file under `directory` by relative path: JSON without its timing fields, anything else as text."""
    found = {}
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".json":
            data = json.loads(text)
            found[str(path.relative_to(directory))] = {k: v for k, v in data.items() if k not in TIMING}
        else:
            found[str(path.relative_to(directory))] = text
    return found


def test_slurm_array_of_shards_then_merge_equals_one_run(tmp_path):
    require_slurm()
    submissions = make_class(tmp_path / "class")
    seed_file = tmp_path / "seed"
    seed_file.write_text(f"{SEED}\n")
    seed_file.chmod(0o600)
    single = contents(grade_once(submissions, tmp_path / "single"))
    with single_node_cluster() as env:
        merged = contents(grade_on_slurm(submissions, tmp_path / "slurm", seed_file, env))
    names = {stem_of(s.name) for s in submissions}
    assert {k.removesuffix(".json") for k in single if k.endswith(".json")} == names | {"grading-run"}
    assert {r["score"] for k, r in single.items() if k.endswith(".json") and "score" in r} >= {0.0, 100.0}
    assert merged == single
