"""The adversarial suite: submissions that attack the grader, graded in one batch by grade.py.

Each must score exactly what an honest stub scores, change no file outside its scratch dir and leave no
process running. The attacks live in tests/adversarial/<name>/ (their docstrings say what they try).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from attnlab.core import paths

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

ATTACKS = Path(__file__).parent / "adversarial"
SENTINELS = [Path("/tmp/attnlab-daemon-was-here"), Path("/tmp/attnlab-forged.json")]
# what the grader should say about run_softmax (where the attack lives), beyond scoring zero
SOFTMAX_STATUS = {"infinite_loop": "timeout", "ignore_signals": "timeout", "sleep_at_import": "timeout",
                  "exit_at_import": "error", "os_exit_in_call": "error", "segfault": "error",
                  "syntax_error": "error", "import_reference": "error", "memory_bomb": "memory",
                  "fixture_replay": "not_implemented", "read_reference_via_proc": "not_implemented"}


def tree_digest(root: Path) -> dict[str, str]:
    skip = {".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", "dist", "grading-output"}
    digest = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not skip & set(path.relative_to(root).parts):
            digest[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digest


def leftover_processes(marker: str) -> list[str]:
    """Live processes whose cwd lies in a grading scratch dir, or that run as a runner uid (65534, 64000+)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            cwd = os.readlink(entry / "cwd")
            uid = int((entry / "status").read_text().split("Uid:")[1].split()[0])
            state = (entry / "status").read_text().split("State:")[1].split()[0]
        except (OSError, IndexError, ValueError):
            continue
        if state != "Z" and (marker in cwd or uid == 65534 or 64000 <= uid < 65000):
            found.append(f"{entry.name}: cwd={cwd} uid={uid}")
    return found


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("adversarial")
    for sentinel in SENTINELS:
        sentinel.unlink(missing_ok=True)
    honest = work / "honest_stub"
    paths.copy_template(honest)
    planted = Path("/opt/attnlab-planted-solution")  # a second copy of the solution outside the repo
    planted.mkdir(parents=True, exist_ok=True)
    shutil.copy(paths.REFERENCE_DIR / "softmax.py", planted / "softmax.py")
    before = tree_digest(paths.ROOT)
    out = work / "out"
    attacks = sorted(p for p in ATTACKS.iterdir() if p.is_dir() and p.name != "__pycache__")
    proc = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(honest), *map(str, attacks),
                           "--out", str(out), "--timeout", "4", "--jobs", "2", "--seed", "11"],
                          cwd=work, capture_output=True, text=True, timeout=900)
    time.sleep(5)  # give any escaped daemon time to show itself
    shutil.rmtree(planted, ignore_errors=True)
    return {"proc": proc, "out": out, "before": before, "after": tree_digest(paths.ROOT),
            "attacks": [a.name for a in attacks], "leftovers": leftover_processes("attnlab-")}


def test_grading_the_batch_succeeds(graded):
    assert graded["proc"].returncode == 0, graded["proc"].stderr[-3000:]


def load(graded, name):
    return json.loads((graded["out"] / f"{name}.json").read_text())


@pytest.mark.parametrize("attack", sorted(p.name for p in ATTACKS.iterdir() if p.is_dir() and p.name != "__pycache__"))
def test_attack_scores_exactly_what_an_honest_stub_scores(graded, attack):
    honest, result = load(graded, "honest_stub"), load(graded, attack)
    assert result["submission"] == attack
    assert result["score"] == honest["score"] == 0
    assert [e["score"] for e in result["exercises"]] == [e["score"] for e in honest["exercises"]]
    softmax = result["exercises"][0]
    if attack in SOFTMAX_STATUS:
        assert softmax["status"] == SOFTMAX_STATUS[attack], softmax["feedback"][:500]
    if attack == "import_reference":  # the course's import rules refuse it before the jail has to
        assert "your code imports reference (__init__.py), which is not available" in softmax["feedback"]


def test_no_file_outside_scratch_changed(graded):
    changed = {k for k in graded["before"].keys() | graded["after"].keys()
               if graded["before"].get(k) != graded["after"].get(k)}
    assert not changed
    assert not any(s.exists() for s in SENTINELS)
    assert sorted(p.name for p in graded["out"].glob("*.json")) == sorted(
        ["grading-run.json", "honest_stub.json", *[f"{a}.json" for a in graded["attacks"]]])


def test_no_process_is_left_running(graded):
    assert graded["leftovers"] == []


def test_code_that_does_not_import_is_explained_once_at_the_students_own_line(graded):
    exercises = load(graded, "syntax_error")["exercises"]
    first, others = exercises[0]["feedback"], [e for e in exercises[1:] if e["function"] is not None]
    assert first.startswith("your package does not import: SyntaxError: expected ':' (at __init__.py:2)")
    assert first.count("SyntaxError") == 1 and "/tmp" not in first and "scratch" not in first and "(+" not in first
    for exercise in others:
        assert exercise["status"] == "error"
        assert exercise["feedback"] == "fails with the same problem as softmax (see its feedback)"
