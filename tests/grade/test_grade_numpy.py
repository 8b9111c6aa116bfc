"""grade.py --framework numpy: NumPy submissions graded in the sandbox like torch ones. The NumPy reference
gets full marks in both assignments (the gradient law shown as not applicable, not counted), the untouched
template gets 0, and NumPy's own mistakes come back from the runner as the student should read them."""

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.spec_load import load_course

pytestmark = [pytest.mark.e2e,  # starts grade.py and its runners
              pytest.mark.skipif(not frameworks.adapter("numpy").available(), reason="numpy is not installed")]

# the exercises with a gradient law: NumPy has no autograd, so the law is shown as not applicable
GRADIENT_LAW = {e.id for e in load_course(paths.SPEC_DIR).all_coded if any(p.name == "gradient" for p in e.properties)}
BUGGY = [  # (file, text in the reference, replacement): mistakes a NumPy student makes
    ("attention.py", "/ math.sqrt(d_k)", "/ np.sqrt(d_k)"),  # np.float64 scalar: float32 scores become float64
    ("attention.py", "return (weights @ V).astype(Q.dtype)", "return weights @ V"),  # ... and stay float64
    ("attention.py", "return np.tril(ones)", "return np.tril(ones).tolist()"),  # a list, not an array
]


def grade(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=600, cwd=paths.ROOT)


def submission(work: Path, name: str, package: Path, answers: Path, edits: list = ()) -> Path:
    """A copy of `package` with the quiz answers a student would hand in (both assignments' quizzes, from
    the directory `answers`), and `edits` applied."""
    target = work / name
    shutil.copytree(package, target, ignore=shutil.ignore_patterns("__pycache__"))
    for quiz in ("quiz.yaml", "modern_quiz.yaml"):
        shutil.copy2(answers / quiz, target / quiz)
    for file, old, new in edits:
        text = (target / file).read_text(encoding="utf-8")
        assert old in text, f"{file} no longer contains {old!r}"
        (target / file).write_text(text.replace(old, new), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    work = tmp_path_factory.mktemp("numpy_class")
    numpy = frameworks.adapter("numpy")
    reference, template = paths.reference_dir(numpy), paths.template_dir(numpy)
    class_dir = [submission(work, "reference", reference, paths.REFERENCE_DIR),
                 submission(work, "template", template, paths.TEMPLATE_DIR),
                 submission(work, "buggy", reference, paths.REFERENCE_DIR, BUGGY)]
    runs = {"attention": grade(*class_dir, "--framework", "numpy", "--out", work / "out", "--seed", "3",
                               "--jobs", "2"),
            "modern": grade(class_dir[0], "--assignment", "modern", "--framework", "numpy", "--out",
                            work / "modern", "--seed", "3"),
            "torch": grade(paths.TEMPLATE_DIR, "--out", work / "torch", "--seed", "3")}
    for run in runs.values():
        assert run.returncode == 0, run.stderr[-3000:]
    return work, runs


def result(work: Path, out: str, name: str) -> dict:
    return json.loads((work / out / f"{name}.json").read_text())


def test_the_numpy_reference_gets_full_marks_in_both_assignments(graded):
    work, _ = graded
    for out in ("out", "modern"):
        data = result(work, out, "reference")
        assert data["framework"] == "numpy" and data["score"] == data["max_score"] > 0
        coded = [e for e in data["exercises"] if "quiz" not in e["id"]]
        assert coded and all(e["status"] == "passed" for e in coded), [e["feedback"] for e in coded]
        # the gradient law is shown, not hidden, and not counted
        assert all("not applicable in numpy" in e["feedback"] for e in coded if e["id"] in GRADIENT_LAW)


def test_the_untouched_numpy_template_scores_zero(graded):
    work, _ = graded
    data = result(work, "out", "template")
    assert data["score"] == 0
    assert all(e["status"] == "not_implemented" for e in data["exercises"] if e["id"] != "quiz")


def test_numpy_mistakes_come_back_from_the_runner_in_numpy_terms(graded):
    work, _ = graded
    exercises = {e["id"]: e for e in result(work, "out", "buggy")["exercises"]}
    sdpa, mask = exercises["scaled_dot_product_attention"], exercises["causal_mask"]
    assert sdpa["score"] < sdpa["max_score"] and "returned dtype float64, expected float32" in sdpa["feedback"]
    assert mask["score"] == 0 and "run_causal_mask returned list of list" in mask["feedback"]
    assert "expected a numpy.ndarray" in mask["feedback"]
    assert exercises["softmax"]["status"] == "passed"  # the rest of the submission is graded as usual


def test_numpy_runs_at_the_isolation_level_of_torch(graded):
    _, runs = graded
    level = re.compile(r"isolation: (\S+)")
    numpy_level, torch_level = (level.search(runs[k].stdout + runs[k].stderr) for k in ("attention", "torch"))
    assert numpy_level and torch_level and numpy_level.group(1) == torch_level.group(1)
    assert "in numpy" in runs["attention"].stdout + runs["attention"].stderr
