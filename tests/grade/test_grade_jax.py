"""Grading JAX submissions in the sandbox: a runner forked from a server that imported JAX (and ran nothing)
computes on one thread, and grade.py --framework jax gives the JAX reference full marks on every coded
exercise and the untouched JAX template none, at the isolation level torch submissions get."""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from attnlab.core import frameworks, paths
from attnlab.core.config import Limits
from attnlab.core.quiz import answer_key, grade_quiz, read_answers
from attnlab.core.spec import ExerciseSpec, QuizSpec
from attnlab.core.spec_load import load_course
from attnlab.grade.judge import compile_cache

pytestmark = [pytest.mark.e2e,  # starts runners and grade.py
              pytest.mark.skipif(not frameworks.adapter("jax").available(), reason="jax is not installed here")]

ASSIGNMENTS = ("attention", "modern")
# what the runner's XLA does while it multiplies: threads that computed, the CPUs it may use, PJRT_NPROC
THREADS_PROBE = """
import os

import jax.numpy as jnp


def _ticks():
    found = {}
    for task in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{task}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        found[task] = int(fields[11]) + int(fields[12])  # utime + stime of the thread
    return found


def run_threads(x):
    a = jnp.ones((1024, 1024), dtype=jnp.float32) + x.sum()
    (a @ a).block_until_ready()  # compiled: what follows is computing only (about a second of it)
    before = _ticks()
    for _ in range(24):
        a = jnp.tanh(a @ a / 1024)
    a.block_until_ready()
    after = _ticks()
    spent = [after[t] - before.get(t, 0) for t in after]
    busy = sum(s > max(spent) / 5 for s in spent)  # the runner's other threads only ever wake up briefly
    return jnp.array([busy, len(os.sched_getaffinity(0)), float(os.environ.get("PJRT_NPROC", "-1"))])
"""


def test_a_forked_runner_computes_jax_on_one_thread(make_submission, remote):
    package, _ = make_submission({"probe.py": THREADS_PROBE})
    limits = Limits(timeout_s=60.0, import_timeout_s=30.0, memory_mb=4096, launcher="forkserver")
    impl = remote(package, limits, framework="jax")
    [got] = impl.call_many(exercise="probe", module="probe", function="run_threads",
                           calls=[{"x": torch.zeros(1)}], forbidden_calls=())
    assert not isinstance(got, Exception), got
    busy, cpus, nproc = got.output.tolist()
    assert nproc == 1 and busy == 1, f"{busy:g} threads computed, on {cpus:g} allowed CPUs"


def grade(*args, timeout, cache: Path | None = None) -> subprocess.CompletedProcess:
    return finished(started(*args, cache=cache), timeout)


def started(*args, cache: Path | None = None, cpus: list[int] | None = None) -> subprocess.Popen:
    """grade.py started with `args` (on `cpus` only, where given: it pins its workers among them)."""
    env = {**os.environ, compile_cache.ENV: str(cache) if cache else "off"}
    return subprocess.Popen([sys.executable, str(paths.ROOT / "grade.py"), *map(str, args)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=paths.ROOT, env=env,
                            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None)


def finished(proc: subprocess.Popen, timeout: float) -> subprocess.CompletedProcess:
    out, err = proc.communicate(timeout=timeout)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def cache_state(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file of the compilation caches under `root`: content digest, mode and owner."""
    return {str(p.relative_to(root)): (hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "dir",
                                       p.stat().st_mode, p.stat().st_uid) for p in sorted(root.rglob("*"))}


JAX = frameworks.adapter("jax")
CLASS = paths.examples_dir(JAX)  # examples/jax: reference, template, partial, buggy, library calls
NAMES = {"attention": "reference", "modern": "jax"}  # the reference's result: the class's, or reference/jax itself
IMPORT_TIMEOUT = "19"  # seconds: JAX's default is 20


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The JAX example class graded as README says (`--framework jax`, no paths) in the first assignment, with a
    compilation cache the judge fills first and an import time limit lowered a little below JAX's default (so
    the reference is tried under it first); the JAX reference in the second, with none; runners forked two at a
    time; and the torch template, for its isolation level. The two JAX runs go at once, on CPUs of their own
    where there are two: the second is one submission, so one runner, computing on one CPU for minutes."""
    work = tmp_path_factory.mktemp("jax")
    cpus = sorted(os.sched_getaffinity(0))
    halves = (cpus[:len(cpus) // 2], cpus[len(cpus) // 2:]) if len(cpus) > 1 else (None, None)
    running = {"attention": started("--framework", "jax", "--out", work / "attention", "--seed", "5", "--jobs", "2",
                                    "--import-timeout", IMPORT_TIMEOUT, cache=work / "cache", cpus=halves[0]),
               "modern": started(paths.reference_dir(JAX), "--framework", "jax", "--assignment", "modern",
                                 "--out", work / "modern", "--seed", "5", "--jobs", "2", cpus=halves[1])}
    procs = {name: finished(proc, timeout=900) for name, proc in running.items()}
    torch_proc = grade(paths.template_dir(frameworks.default()), "--out", work / "torch", "--seed", "5", "--jobs", "1",
                       timeout=600)
    results = {(assignment, path.stem): json.loads(path.read_text())
               for assignment in ASSIGNMENTS for path in (work / assignment).glob("*.json")
               if path.name != "grading-run.json"}
    return procs, torch_proc, results, work


@pytest.fixture(scope="module")
def attacked(graded):
    """The filled cache as the first run left it; then a submission attacking it and the class's reference again,
    graded one after the other in a second run; the cache afterwards."""
    work = graded[3]
    before = cache_state(work / "cache")
    attacker = work / "a_cache_attack"  # sorts before "reference": graded first
    shutil.copytree(CLASS / "untouched_template", attacker, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(Path(__file__).with_name("jax_cache_attack.py"), attacker / "softmax.py")
    proc = grade(attacker, CLASS / "reference", "--framework", "jax", "--assignment", "attention",
                 "--out", work / "again", "--seed", "5", "--jobs", "1", timeout=900, cache=work / "cache")
    results = {path.stem: json.loads(path.read_text()) for path in (work / "again").glob("*.json")
               if path.name != "grading-run.json"}
    return before, proc, results, cache_state(work / "cache")


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_grade_py_gives_the_jax_reference_full_marks(graded, assignment):
    procs, _, results, _ = graded
    assert procs[assignment].returncode == 0, procs[assignment].stderr[-3000:]
    data = results[assignment, NAMES[assignment]]
    assert data["framework"] == "jax" and data["assignment"] == assignment
    assert data["score"] == data["max_score"] == load_course(paths.SPEC_DIR, assignment, "jax").total_points
    coded = {e.id for e in load_course(paths.SPEC_DIR, assignment, "jax").exercises if isinstance(e, ExerciseSpec)}
    graded_here = {e["id"]: e for e in data["exercises"]}
    assert coded <= graded_here.keys()
    # every check of every coded exercise applies in JAX: none is shown as not applicable
    wrong = {k: e["feedback"] for k, e in graded_here.items() if e["status"] != "passed" or "not applicable" in
             e["feedback"]}
    assert not wrong, wrong


def test_grade_py_gives_the_jax_template_nothing_at_torchs_isolation(graded):
    procs, torch_proc, results, _ = graded
    proc, data = procs["attention"], results["attention", "untouched_template"]
    assert data["framework"] == "jax" and data["score"] == 0
    assert all(e["status"] == "not_implemented" for e in data["exercises"] if e["function"]), data["exercises"]
    # the level's name: the rest of the line names the runners' uids, one per job
    level, torch_level = (re.search(r"isolation: (\S+)", p.stdout + p.stderr) for p in (proc, torch_proc))
    assert level and torch_level and level.group(1) == torch_level.group(1)


def test_with_no_paths_grade_py_grades_the_jax_example_class(graded):
    _, _, results, _ = graded
    assert {name for assignment, name in results if assignment == "attention"} == {p.name for p in CLASS.iterdir()}


def test_the_jax_example_class_gets_the_expected_scores(graded):
    _, _, results, _ = graded
    course = load_course(paths.SPEC_DIR, "attention", "jax")
    quiz = next(e for e in course.exercises if isinstance(e, QuizSpec))
    core = ("softmax", "simple_self_attention", "scaled_dot_product_attention", "causal_mask")
    answers = {name: grade_quiz(quiz, read_answers(CLASS / name / quiz.answers_file), answer_key(quiz),
                                lang="en").score for name in ("zhou_partial", "wu_buggy", "xu_library_calls")}
    by_id = {name: {e["id"]: e for e in results["attention", name]["exercises"]} for name in answers}
    partial = results["attention", "zhou_partial"]["score"]
    assert partial == pytest.approx(sum(e.points for e in course.exercises if e.id in core) + answers["zhou_partial"])
    assert {i for i, e in by_id["zhou_partial"].items() if e["status"] == "passed"} == set(core)
    forbidden = by_id["xu_library_calls"]["softmax"]
    assert forbidden["status"] == "forbidden" and forbidden["score"] == 0 and "jax.nn.softmax" in forbidden["feedback"]
    buggy = by_id["wu_buggy"]
    assert "WHOLE" in buggy["softmax"]["feedback"] and 0 < buggy["softmax"]["score"] < 8  # the global maximum
    assert buggy["causal_mask"]["score"] == 0 and buggy["simple_self_attention"]["status"] == "passed"


def test_the_judge_fills_a_compilation_cache_that_runners_only_read(graded):
    procs, _, _, work = graded
    assert "compiling jax's operations once from the reference" in procs["attention"].stderr
    [cache] = (work / "cache").glob("jax-*/attention-*")
    entries = [p.name for p in cache.iterdir() if p.name != compile_cache.COMPLETE]
    assert len(entries) > 50, entries  # every operation the checks ran, per shape
    # nothing the reference compiled as its own (a jax.jit function of its, a loop body) is kept
    own = compile_cache.defined_names(paths.reference_dir(frameworks.adapter("jax")))
    assert not [e for e in entries if compile_cache.ENTRY.fullmatch(e)["module"].removeprefix("jit_") in own]
    assert all(p.stat().st_uid == os.geteuid() and p.stat().st_mode & 0o777 == 0o644 for p in cache.iterdir())
    assert cache.stat().st_mode & 0o777 == 0o755


def test_the_reference_that_filled_the_cache_is_the_trial_of_lowered_limits(graded):
    """A limit lowered below the framework's default is tried on the reference before the class. Filling the
    cache graded the reference under the same limits, compiling everything: when it kept every point there, it
    is not graded a second time (a JAX reference costs about a minute)."""
    stderr = graded[0]["attention"].stderr
    assert Limits.for_adapter(JAX, "cpu").import_timeout_s > float(IMPORT_TIMEOUT)  # lowered, so tried first
    assert ("the reference, graded to fill the compilation cache, kept every point under "
            f"--import-timeout {IMPORT_TIMEOUT}") in stderr, stderr[-3000:]
    assert "grading the reference under" not in stderr


def test_a_submission_cannot_poison_or_read_the_compilation_cache(graded, attacked):
    _, _, first, _ = graded
    before, proc, results, after = attacked
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "compiling" not in proc.stderr  # the cache of the first run, reused
    softmax = next(e for e in results["a_cache_attack"]["exercises"] if e["id"] == "softmax")
    assert softmax["status"] == "not_implemented", softmax["feedback"]
    assert "read-only and holds nothing of the reference" in softmax["feedback"]
    assert after == before
    # graded after the attack, with the same cache: the same verdict on every check as before it
    def verdicts(result):
        return [(e["id"], e["score"], e["status"], e["feedback"]) for e in result["exercises"]]
    assert verdicts(results["reference"]) == verdicts(first["attention", "reference"])
