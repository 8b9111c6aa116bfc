"""grade.py --framework numpy: NumPy submissions graded in the sandbox like torch ones. With no paths it grades
the NumPy example class (examples/numpy/): the reference gets full marks in both assignments (the gradient law
shown as not applicable, not counted), the untouched template 0, the partial submission its finished exercises
and answers, NumPy's own mistakes come back from the runner as the student should read them, and a library the
course does not offer is refused by name."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.quiz import answer_key, grade_quiz, read_answers
from attnlab.core.spec import QuizSpec
from attnlab.core.spec_load import load_course

pytestmark = [pytest.mark.e2e,  # starts grade.py and its runners
              pytest.mark.skipif(not frameworks.adapter("numpy").available(), reason="numpy is not installed")]

# the exercises with a gradient law: NumPy has no autograd, so the law is shown as not applicable
GRADIENT_LAW = {e.id for e in load_course(paths.SPEC_DIR).all_coded if any(p.name == "gradient" for p in e.properties)}
NUMPY = frameworks.adapter("numpy")
CLASS = paths.examples_dir(NUMPY)  # examples/numpy: reference, template, partial, buggy, a SciPy import
CORE = ("softmax", "simple_self_attention", "scaled_dot_product_attention", "causal_mask")  # the partial's


def grade(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *map(str, args)], capture_output=True,
                          text=True, timeout=600, cwd=paths.ROOT)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """The example class graded as README says (`--framework numpy` and no paths), the reference in the modern
    assignment, and the torch template for its isolation level."""
    work = tmp_path_factory.mktemp("numpy_class")
    runs = {"attention": grade("--framework", "numpy", "--out", work / "out", "--seed", "3", "--jobs", "2"),
            "modern": grade(paths.reference_dir(NUMPY), "--assignment", "modern", "--framework", "numpy", "--out",
                            work / "modern", "--seed", "3"),
            "torch": grade(paths.TEMPLATE_DIR, "--out", work / "torch", "--seed", "3")}
    for run in runs.values():
        assert run.returncode == 0, run.stderr[-3000:]
    return work, runs


def result(work: Path, out: str, name: str) -> dict:
    return json.loads((work / out / f"{name}.json").read_text())


def quiz_points(package: Path) -> float:
    """What the answers in package/quiz.yaml score against the key."""
    quiz = next(e for e in load_course(paths.SPEC_DIR).exercises if isinstance(e, QuizSpec))
    return grade_quiz(quiz, read_answers(package / quiz.answers_file), answer_key(quiz), lang="en").score


def test_with_no_paths_grade_py_grades_the_numpy_example_class(graded):
    work, _ = graded
    names = {p.stem for p in (work / "out").glob("*.json")} - {"grading-run"}
    assert names == {p.name for p in CLASS.iterdir()} == {"reference", "untouched_template", "chen_partial",
                                                          "liu_buggy", "sun_library_calls"}


def test_the_numpy_reference_gets_full_marks_in_both_assignments(graded):
    work, _ = graded
    for out, name in (("out", "reference"), ("modern", "numpy")):  # reference/numpy/ graded as itself
        data = result(work, out, name)
        assert data["framework"] == "numpy" and data["score"] == data["max_score"] == 100
        coded = [e for e in data["exercises"] if "quiz" not in e["id"]]
        assert coded and all(e["status"] == "passed" for e in coded), [e["feedback"] for e in coded]
        # the gradient law is shown, not hidden, and not counted
        assert all("not applicable in numpy" in e["feedback"] for e in coded if e["id"] in GRADIENT_LAW)


def test_the_untouched_numpy_template_scores_zero(graded):
    work, _ = graded
    data = result(work, "out", "untouched_template")
    assert data["score"] == 0
    assert all(e["status"] == "not_implemented" for e in data["exercises"] if e["id"] != "quiz")


def test_the_partial_submission_scores_its_finished_exercises_and_its_answers(graded):
    work, _ = graded
    data = result(work, "out", "chen_partial")
    course = load_course(paths.SPEC_DIR, "attention", "numpy")
    expected = sum(e.points for e in course.exercises if e.id in CORE) + quiz_points(CLASS / "chen_partial")
    assert data["score"] == pytest.approx(expected) and 0 < expected < 50
    assert {e["id"] for e in data["exercises"] if e["status"] == "passed"} == set(CORE)


def test_numpy_mistakes_come_back_from_the_runner_in_numpy_terms(graded):
    work, _ = graded
    exercises = {e["id"]: e for e in result(work, "out", "liu_buggy")["exercises"]}
    sdpa, mask = exercises["scaled_dot_product_attention"], exercises["causal_mask"]
    assert sdpa["score"] < sdpa["max_score"] and "returned dtype float64, expected float32" in sdpa["feedback"]
    assert mask["score"] == 0 and "run_causal_mask returned list of list" in mask["feedback"]
    assert "expected a numpy.ndarray" in mask["feedback"]
    assert "WHOLE" in exercises["softmax"]["feedback"]  # the maximum of the whole array, diagnosed
    assert exercises["simple_self_attention"]["status"] == "passed"  # the rest is graded as usual


def test_a_library_the_course_does_not_offer_is_refused_by_name(graded):
    work, _ = graded
    data = result(work, "out", "sun_library_calls")
    assert data["score"] == quiz_points(CLASS / "sun_library_calls")  # the answers still count
    softmax = next(e for e in data["exercises"] if e["id"] == "softmax")
    assert softmax["score"] == 0 and "imports scipy" in softmax["feedback"]


def test_numpy_runs_at_the_isolation_level_of_torch(graded):
    _, runs = graded
    level = re.compile(r"isolation: (\S+)")
    numpy_level, torch_level = (level.search(runs[k].stdout + runs[k].stderr) for k in ("attention", "torch"))
    assert numpy_level and torch_level and numpy_level.group(1) == torch_level.group(1)
    assert "in numpy" in runs["attention"].stdout + runs["attention"].stderr
