"""`systems` outside torch: the Triton exercises are "not applicable in <framework>" (their spec asks for
kernels_only), never refused. The course loaded in NumPy leaves them out of the exercises, the total and the
libraries; grade.py gives the NumPy reference full marks for what applies and says why the rest does not;
the NumPy handout carries no Triton stub and installs no triton. An exercise not written in a framework for
any other reason is still refused."""

import dataclasses
import json
import subprocess
import sys

import pytest
import yaml

from attnlab.core import paths
from attnlab.core.spec import SpecError, in_assignment
from attnlab.core.spec_load import load_course
from attnlab.student.notebook import UnknownExercise, exercise_spec

TRITON = [e.id for e in load_course(paths.SPEC_DIR, "systems").coded if e.needs_triton]


@pytest.mark.slow  # loads the course four times (about 1 s each)
def test_triton_exercises_are_not_applicable_outside_torch():
    torch_course = load_course(paths.SPEC_DIR, "systems")
    assert TRITON and "triton" in torch_course.libraries and not torch_course.not_applicable
    for framework in ("numpy", "jax", "mindspore"):
        course = load_course(paths.SPEC_DIR, "systems", framework)
        assert [e.id for e in course.not_applicable] == TRITON
        assert not {e.id for e in course.exercises} & set(TRITON)
        assert course.total_points == torch_course.total_points - sum(torch_course.get(i).points for i in TRITON)
        assert "triton" not in course.libraries
        with pytest.raises(UnknownExercise, match=f"not applicable in {framework}: it is written as Triton kernels"):
            exercise_spec(TRITON[0], "en", course)


def test_an_exercise_not_written_in_a_framework_for_another_reason_is_still_refused():
    course = load_course(paths.SPEC_DIR, "systems")
    only_torch = {e.id: e for e in course.exercises}
    only_torch["paged_attention"] = dataclasses.replace(only_torch["paged_attention"], frameworks=("torch",))
    in_numpy = dataclasses.replace(course.assignment, framework="numpy")
    with pytest.raises(SpecError, match="exercise 'paged_attention' can only be written in torch"):
        in_assignment(in_numpy, only_torch, ())


@pytest.mark.e2e
def test_grade_py_gives_the_numpy_reference_full_marks_for_what_applies(tmp_path):
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), str(paths.ROOT / "reference" / "numpy"),
                           "--assignment", "systems", "--framework", "numpy", "--out", str(out), "--seed", "3"],
                          capture_output=True, text=True, timeout=600, cwd=paths.ROOT)
    assert done.returncode == 0, done.stderr
    result = json.loads((out / "numpy.json").read_text(encoding="utf-8"))
    assert result["score"] == result["max_score"] == 55
    by_id = {e["id"]: e for e in result["exercises"]}
    for exercise_id in TRITON:
        left_out = by_id[exercise_id]
        assert (left_out["status"], left_out["score"], left_out["max_score"]) == ("not_applicable", 0, 0)
        assert "not applicable in numpy: it is written as Triton kernels" in left_out["feedback"]
    assert all(e["status"] == "passed" for i, e in by_id.items() if i not in TRITON)
    assert "55.00 / 55  3/3" in done.stdout  # the not-applicable exercises are not counted as failed


@pytest.mark.e2e
def test_the_numpy_handout_has_no_triton(tmp_path):
    from attnlab.instructor.release import PACKAGE, build_handout

    handout = build_handout(out=tmp_path, assignment="systems", framework="numpy")
    stubs = {p.name for p in (handout / PACKAGE).iterdir()}
    assert "paged_attention.py" in stubs and not any(f"{i}.py" in stubs for i in TRITON)
    assert "triton" not in (handout / "pyproject.toml").read_text(encoding="utf-8")
    released = yaml.safe_load((handout / "spec" / "course.yaml").read_text(encoding="utf-8"))["assignments"][0]
    assert not set(TRITON) & set(released["exercises"]) and released["total_points"] == 55
    readme = (handout / "README.md").read_text(encoding="utf-8")
    assert "is not applicable in numpy" in readme
    notebook = (handout / "systems.en.ipynb").read_text(encoding="utf-8")
    assert "not applicable in numpy" in notebook and "triton" not in notebook.split("%pip install")[1].split("\\n")[0]
