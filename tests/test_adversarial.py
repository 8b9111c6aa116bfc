"""The adversarial suite: submissions that attack the grader, graded in one batch by grade.py, on this
machine as it is and under simulations of the machines grade.py must also work on (simulations.py: root
without CAP_SYS_ADMIN, a default Docker container, one on a kernel without Landlock).

Each must score exactly what an honest stub scores, change no file outside its scratch dir, leave every
file mode as it was and leave no process running, at whatever level grade.py reached; where the README
names something a level does not protect, the verdict differs exactly as DIFFERENCES says. The attacks live
in tests/adversarial/<name>/ (their docstrings say what they try).
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import simulations

from attnlab.core import frameworks, paths
from attnlab.core.config import Limits
from attnlab.grade.batch import secret

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

ATTACKS = Path(__file__).parent / "adversarial"
SENTINELS = [Path("/tmp/attnlab-daemon-was-here"), Path("/tmp/attnlab-forged.json")]
# what the grader should say about run_softmax (where the attack lives), beyond scoring zero
SOFTMAX_STATUS = {"infinite_loop": "timeout", "ignore_signals": "timeout", "sleep_at_import": "timeout",
                  "exit_at_import": "error", "os_exit_in_call": "error", "segfault": "error",
                  "syntax_error": "error", "import_reference": "error", "memory_bomb": "memory",
                  "fixture_replay": "not_implemented", "read_reference_via_proc": "not_implemented",
                  "read_course_secret": "not_implemented"}
# README: at root-dropped+file-modes (no namespaces, no Landlock) a runner can read what any user can,
# such as a world-readable copy of the solution outside the checkout: the planted one is stolen
DIFFERENCES = {"root-dropped+file-modes": {"read_reference_via_proc": "passed"}}
SIMULATED = ("here", "no-sys-admin", "docker", "docker-no-landlock")
# the attacks that wait out a limit, longest first (sleep_at_import: the import's wall backstop, 28 s with
# --import-timeout 6 against 70 s by default; the others 10-28 s): graded before the rest, they overlap them
# instead of starting last and holding the whole batch up. grade.py grades in the order of the submissions'
# paths, so each is copied under a folder named by its rank
IMPORT_TIMEOUT_S = 6
WAIT_OUT_A_LIMIT = ("sleep_at_import", "fork_bomb", "deep_recursion", "ignore_signals", "infinite_loop", "print_flood")


def modes_that_matter() -> dict[str, int]:
    """Modes grade.py may change for a run: the checkout's entries, and the way to the interpreter."""
    found = {str(p): p.stat().st_mode for p in paths.ROOT.iterdir()}
    for target in (Path(sys.executable).resolve(), Path(sys.prefix)):
        found.update({str(p): p.stat().st_mode for p in target.parents})
    return found


def tree_digest(root: Path) -> dict[str, str]:
    """Every file of the checkout but its environments (.venv, .venv-mindspore: 4.6 GB, 41,000 files, read
    twice), git's and pytest's state and what grade.py writes on purpose."""
    skip = {".git", "__pycache__", ".pytest_cache", ".hypothesis", "dist", "grading-output", ".attnlab"}
    digest = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in skip and not (folder == str(root) and d.startswith(".venv"))]
        for name in files:
            path = Path(folder) / name
            if path.is_file():
                digest[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return dict(sorted(digest.items()))


def leftover_processes(markers: list[str], uids: set[int]) -> list[str]:
    """Live processes whose cwd lies in one of the run's scratch dirs, or that run as one of its runner uids."""
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
        if state != "Z" and (any(m in cwd for m in markers) or uid in uids):
            found.append(f"{entry.name}: cwd={cwd} uid={uid}")
    return found


def simulation_prefixes() -> tuple[dict[str, list[str]], dict[str, str]]:
    """The command prefix of each simulation that can run here, and why each other one cannot."""
    prefixes, skipped = {}, {}
    for name in SIMULATED:
        try:
            prefixes[name] = simulations.prefix(name)
        except pytest.skip.Exception as exc:
            skipped[name] = str(exc)
    return prefixes, skipped


@pytest.fixture(scope="module")
def every_simulation(tmp_path_factory):
    """The batch graded under every simulation at once, one grade.py each: they spend most of their time waiting
    out attacks' time limits, and concurrent runs are what grade.py is built for (leased runner uids, one lock
    on file modes). The checkout, the modes and the processes are compared once, before all and after all."""
    prefixes, skipped = simulation_prefixes()
    work = tmp_path_factory.mktemp("adversarial")
    for sentinel in SENTINELS:
        sentinel.unlink(missing_ok=True)
    honest = work / "honest_stub"
    paths.copy_template(honest, frameworks.default())
    planted = Path("/opt/attnlab-planted-solution")  # a second copy of the solution outside the repo
    planted.mkdir(parents=True, exist_ok=True)
    shutil.copy(paths.REFERENCE_DIR / "softmax.py", planted / "softmax.py")
    # the course secret where grade.py keeps it by default (the checkout, which runners see) and where this
    # session's tests keep theirs (/tmp): read_course_secret looks for both
    made_default = secret.read(secret.DEFAULT_FILE) is None
    secret.ensure(secret.DEFAULT_FILE), secret.ensure(secret.secret_file())
    before, modes_before = tree_digest(paths.ROOT), modes_that_matter()
    rank = {name: i for i, name in enumerate(WAIT_OUT_A_LIMIT)}
    attacks = [shutil.copytree(p, work / "queue" / f"{rank.get(p.name, len(rank)):02d}" / p.name,  # "10" after "09"
                               ignore=shutil.ignore_patterns("__pycache__"))
               for p in sorted(ATTACKS.iterdir()) if p.is_dir() and p.name != "__pycache__"]
    running = {}
    for name, prefix in prefixes.items():  # output into files: a pipe nobody reads yet could fill and block
        (work / name).mkdir()
        with open(work / name / "stdout", "w") as out, open(work / name / "stderr", "w") as err:
            running[name] = subprocess.Popen(
                [*prefix, sys.executable, str(paths.ROOT / "grade.py"), str(honest), *map(str, attacks),
                 "--out", str(work / name / "out"), "--timeout", "4", "--import-timeout", str(IMPORT_TIMEOUT_S),
                 "--jobs", "2", "--seed", "11"],
                cwd=work / name, stdout=out, stderr=err)
    procs = {}
    for name, popen in running.items():
        popen.wait(timeout=900)
        procs[name] = subprocess.CompletedProcess(popen.args, popen.returncode, (work / name / "stdout").read_text(),
                                                  (work / name / "stderr").read_text())
    time.sleep(5)  # give any escaped daemon time to show itself
    shutil.rmtree(planted, ignore_errors=True)
    if made_default:
        shutil.rmtree(secret.DEFAULT_FILE.parent)
    uids = set()
    for proc in procs.values():
        found = re.search(r"runner uids ([0-9, ]+)", proc.stderr)
        uids |= {int(u) for u in found.group(1).split(",")} if found else set()
    scratch_dirs = [f"/attnlab-{name}-" for name in ["honest_stub", *(a.name for a in attacks)]]
    shared = {"before": before, "after": tree_digest(paths.ROOT), "modes": (modes_before, modes_that_matter()),
              "attacks": [a.name for a in attacks], "leftovers": leftover_processes(scratch_dirs, uids)}
    results = {}
    for name, proc in procs.items():
        level = re.search(r"isolation: (\S+)", proc.stderr)
        results[name] = {**shared, "proc": proc, "out": work / name / "out",
                         "level": level.group(1) if level else None,
                         "expected_level": simulations.expected_level(name)}
    return results, skipped


@pytest.fixture(scope="module", params=SIMULATED)
def graded(request, every_simulation):
    results, skipped = every_simulation
    if request.param in skipped:
        pytest.skip(skipped[request.param])
    return results[request.param]


def test_grading_the_batch_succeeds_at_the_expected_level(graded):
    assert graded["proc"].returncode == 0, graded["proc"].stderr[-3000:]
    assert graded["level"] == graded["expected_level"]


def load(graded, name):
    return json.loads((graded["out"] / f"{name}.json").read_text())


@pytest.mark.parametrize("attack", sorted(p.name for p in ATTACKS.iterdir() if p.is_dir() and p.name != "__pycache__"))
def test_attack_scores_exactly_what_an_honest_stub_scores(graded, attack):
    honest, result = load(graded, "honest_stub"), load(graded, attack)
    assert result["submission"] == attack
    softmax = result["exercises"][0]
    if attack in DIFFERENCES.get(graded["level"], {}):
        assert softmax["status"] == DIFFERENCES[graded["level"]][attack], softmax["feedback"][:500]
        assert [e["score"] for e in result["exercises"][1:]] == [e["score"] for e in honest["exercises"][1:]]
        return
    assert result["score"] == honest["score"] == 0
    assert [e["score"] for e in result["exercises"]] == [e["score"] for e in honest["exercises"]]
    if attack in SOFTMAX_STATUS:
        assert softmax["status"] == SOFTMAX_STATUS[attack], softmax["feedback"][:500]
    if attack == "sleep_at_import":  # grade.py's --import-timeout, with its wall-clock backstop (28 s)
        after = f"did not finish after {Limits().backstop(IMPORT_TIMEOUT_S):g} s"
        assert after in softmax["feedback"], softmax["feedback"][:500]
    if attack == "import_reference":  # the course's import rules refuse it before the jail has to
        assert "your code imports reference (__init__.py), which is not available" in softmax["feedback"]


def test_no_file_outside_scratch_changed(graded):
    changed = {k for k in graded["before"].keys() | graded["after"].keys()
               if graded["before"].get(k) != graded["after"].get(k)}
    assert not changed
    assert not any(s.exists() for s in SENTINELS)
    before, after = graded["modes"]
    assert {k: oct(v) for k, v in after.items() if before.get(k) != v} == {}
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
