"""What a runner can and cannot do at each level where its uid is a host uid (root without CAP_SYS_ADMIN),
as the README's isolation table states it. grade.py is forced to each level (--isolation: the same code path
as when the level is the best this machine offers; tests/test_adversarial.py runs the attacks under real
simulations of those machines). A probe submission reports what it could do, from inside run_softmax."""

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import paths
from attnlab.grade.sandbox import procs
from attnlab.grade.sandbox.levels import Isolation, available

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

SEED = "918273645"
PROBE = """
import json, os, resource

def attempt(action):
    try:
        action()
        return "ok"
    except Exception as exc:
        return type(exc).__name__

def write(path):
    with open(path, "w") as f:
        f.write("was here")

def seed_visible():
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if b"SEED" in open(f"/proc/{pid}/cmdline", "rb").read():
                return True
        except OSError:
            pass
    return False

def my_uid_runs():
    mine = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            uid = int(open(f"/proc/{pid}/status").read().split("Uid:")[1].split()[0])
        except (OSError, IndexError, ValueError):
            continue
        if uid == os.getuid():
            mine.append(int(pid))
    return mine

def run_softmax(in_features, dim):
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    report = {
        "uid": int(status["Uid"].split()[0]), "caps": status["CapEff"].strip(), "nnp": status["NoNewPrivs"].strip(),
        "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0], "uid_runs_only_me": my_uid_runs() == [os.getpid()],
        "reference": attempt(lambda: open("REFERENCE").read()),
        "seed_file": attempt(lambda: open("SEED_FILE").read()),
        "public_copy": attempt(lambda: open("PUBLIC").read()),
        "private_copy": attempt(lambda: open("PRIVATE").read()),
        "write_tmp": attempt(lambda: write("/tmp/attnlab-probe-WRITE")),
        "signal_parent": attempt(lambda: os.kill(os.getppid(), 0)),
        "seed_in_a_command_line": seed_visible(),
    }
    raise NotImplementedError("PROBE" + json.dumps(report))
"""
# what each level lets the probe do (README's isolation table); "denied" is any error
EXPECTED = {
    Isolation.ROOT_USER_NAMESPACES: {"public_copy": "denied", "write_tmp": "denied", "signal_parent": "ok"},
    Isolation.ROOT_LANDLOCK: {"public_copy": "denied", "write_tmp": "denied", "signal_parent": "denied"},
    Isolation.ROOT_FILE_MODES: {"public_copy": "ok", "write_tmp": "ok", "signal_parent": "denied"},
}


def plant(root: Path, private: bool) -> Path:
    """A copy of a solution file outside the checkout: world-readable, or in a directory only root enters."""
    root.mkdir(mode=0o700 if private else 0o755)
    root.chmod(0o700 if private else 0o755)
    (root / "softmax.py").write_text((paths.REFERENCE_DIR / "softmax.py").read_text())
    (root / "softmax.py").chmod(0o644)
    return root / "softmax.py"


@pytest.mark.parametrize("level", list(EXPECTED), ids=str)
def test_what_a_runner_with_a_host_uid_can_do(level, make_submission, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the root-dropped levels need root")
    if level not in available():
        pytest.skip(f"{level} is not available on this kernel (levels.py says what it needs)")
    token = tmp_path.name[-12:]
    public, private = plant(Path(f"/opt/attnlab-public-{token}"), False), plant(tmp_path / "private", True)
    out = tmp_path / "out"
    source = PROBE
    for name, value in {"REFERENCE": paths.REFERENCE_DIR / "softmax.py", "SEED_FILE": out / "grading-run.json",
                        "PUBLIC": public, "PRIVATE": private, "WRITE": token, "SEED": SEED}.items():
        source = source.replace(name, str(value))
    package, _ = make_submission({"softmax.py": source})
    try:
        done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(package), "--out", str(out),
                               "--isolation", level.value, "--seed", SEED, "--jobs", "1"],
                              capture_output=True, text=True, timeout=300)
    finally:
        public.unlink()
        public.parent.rmdir()
    assert done.returncode == 0, done.stderr[-2000:]
    uid = int(re.search(r"runner uids (\d+)", done.stderr).group(1))
    feedback = json.loads((out / f"{package.name}.json").read_text())["exercises"][0]["feedback"]
    report = json.loads(re.search(r"PROBE(\{.*?\})", feedback).group(1))

    assert report["caps"] == "0000000000000000" and report["nnp"] == "1" and report["nproc"] == 64
    assert report["uid"] == (0 if level.user_namespace else uid)  # root of its own namespace: uid on the host
    assert report["uid_runs_only_me"]  # its uid is its own: RLIMIT_NPROC counts its processes alone
    assert [report[key] for key in ("reference", "seed_file", "private_copy")].count("ok") == 0, report
    for key, expected in EXPECTED[level].items():
        assert (report[key] == "ok") == (expected == "ok"), (key, report[key])
    assert report["seed_in_a_command_line"] is False
    # afterwards: nothing of the runner uid runs or stays in /tmp, and every mode is back
    assert procs.processes_of(uid) == [] and not Path(f"/tmp/attnlab-probe-{token}").exists()
    assert stat.S_IMODE(paths.REFERENCE_DIR.stat().st_mode) & 0o005 and stat.S_IMODE(out.stat().st_mode) & 0o005


def test_a_private_tmpdir_still_holds_the_runners_scratch_dirs(tmp_path):
    """TMPDIR set to a directory of mode 0700 (a batch system's per-job one): runners with a host uid can still
    enter their scratch dirs there, so the reference keeps full marks; the modes are put back afterwards."""
    if os.geteuid() != 0:
        pytest.skip("the root-dropped levels need root")
    private = tmp_path / "private-tmp"
    private.mkdir(mode=0o700)
    on_the_way = [private, *(p for p in private.parents if not p.stat().st_mode & 0o001)]
    modes = {p: stat.S_IMODE(p.stat().st_mode) for p in on_the_way}
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(paths.REFERENCE_DIR), "--out", str(out),
                           "--isolation", Isolation.ROOT_FILE_MODES.value, "--seed", SEED, "--jobs", "1"],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "TMPDIR": str(private)})
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads((out / "reference.json").read_text())
    assert result["score"] == result["max_score"], [(e["id"], e["feedback"][:200]) for e in result["exercises"]
                                                    if e["score"] < e["max_score"]]
    assert {p: stat.S_IMODE(p.stat().st_mode) for p in on_the_way} == modes
