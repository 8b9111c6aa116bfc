"""A framework's own tolerance (spec `tolerance: mindspore: {float64: ...}`): validated when the spec loads,
applied when the course is loaded in that framework and nowhere else (docs/mindspore.md says why MindSpore
needs one)."""


import pytest
from spec_copies import edit

from attnlab.core import frameworks, paths
from attnlab.core.spec import SpecError, Tolerance
from attnlab.core.spec_load import load_course


def edit_tolerance(path, change):
    edit(path, lambda data: change(data["tolerance"]))


def test_mindspore_gets_its_float64_tolerance_and_only_mindspore():
    general = load_course(paths.SPEC_DIR).find("self_attention")
    graded_in_mindspore = load_course(paths.SPEC_DIR, framework="mindspore").find("self_attention")
    assert general.tolerance["float64"] == Tolerance(atol=1e-12, rtol=1e-10)
    assert graded_in_mindspore.tolerance["float64"] == Tolerance(atol=1e-6, rtol=1e-5)
    assert graded_in_mindspore.tolerance["float32"] == general.tolerance["float32"]
    assert general.in_framework("mindspore") == graded_in_mindspore
    for other in ("torch", "numpy", "jax"):
        assert general.in_framework(other).tolerance == general.tolerance
    softmax = load_course(paths.SPEC_DIR, framework="mindspore").find("softmax")  # no Python float meets float64
    assert softmax.tolerance["float64"] == Tolerance(atol=1e-12, rtol=1e-10)


@pytest.mark.parametrize(("change", "fragments"), [
    (lambda t: t.update(mindpsore={"float64": {"atol": 1e-6, "rtol": 1e-5}}), ("tolerance", "mindpsore")),
    (lambda t: t.update(mindspore={"float64": {"atol": 1e-13, "rtol": 1e-5}}),
     ("tolerance.mindspore.float64", "no tighter than the general tolerance")),
    (lambda t: t.update(mindspore={"int64": {"atol": 0, "rtol": 0}}), ("tolerance.mindspore", "int64")),
    (lambda t: t.update(mindspore={}), ("tolerance.mindspore", "at least one dtype")),
    (lambda t: t.update(mindspore={"float64": {"atol": 1e-6}}), ("tolerance.mindspore.float64", "rtol")),
])
def test_a_wrong_framework_tolerance_names_file_and_key(spec_dir, change, fragments):
    edit_tolerance(spec_dir / "self_attention.yaml", change)
    with pytest.raises(SpecError) as info:
        load_course(spec_dir)
    for fragment in ("self_attention.yaml", *fragments):
        assert fragment in str(info.value), str(info.value)


def test_a_framework_with_more_overhead_per_operation_gets_a_longer_cpu_limit():
    """grade.py's default --timeout and the student's timer: torch's 60 CPU s, times the adapter's factor."""
    from attnlab.core.config import EXERCISE_CPU_S, Limits

    def limits(name: str) -> Limits:
        return Limits.for_adapter(frameworks.adapter(name))

    assert limits("torch").timeout_s == limits("numpy").timeout_s == EXERCISE_CPU_S
    assert limits("jax").timeout_s == limits("mindspore").timeout_s == 2 * EXERCISE_CPU_S
    assert limits("jax").memory_mb == limits("torch").memory_mb == Limits().memory_mb == 4096
    assert limits("jax").backstop(1.0) == limits("torch").backstop(1.0) == 3 * 1.0 + 10  # one clock rule
