"""What student code may import: the course's libraries (einops, einx) work; any other package gets one
plain message naming it, not a traceback; libraries' own imports are not affected."""


import pytest

from attnlab.core import frameworks, paths
from attnlab.core.impl import InProcessImpl
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

COURSE = load_course(paths.SPEC_DIR)
EINOPS_SDPA = '''
import math
import einops
import einx
import torch


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = torch.einsum("... q d, ... k d -> ... q k", Q, K) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    scores = scores - einops.reduce(scores, "... q k -> ... q 1", "max")
    weights = scores.exp()
    weights = weights / einx.sum("... q ([k])", weights)
    return weights @ V
'''


def package_with(tmp_path, attention: str):
    package = tmp_path / "pkg"
    paths.copy_template(package, frameworks.default())
    (package / "attention.py").write_text(attention)
    return package


def grade(package, exercise_id):
    impl = InProcessImpl(package, libraries=COURSE.libraries, adapter=frameworks.default())
    return grade_exercise(make_context(COURSE.get(exercise_id), impl))


def test_the_course_lists_einops_and_einx():
    assert set(COURSE.libraries) == {"einops", "einx"}


@pytest.mark.slow  # grades whole exercises with einops and einx imported
def test_einops_and_einx_solutions_get_full_marks(tmp_path):
    result = grade(package_with(tmp_path, EINOPS_SDPA), "scaled_dot_product_attention")
    assert result.status == Status.PASSED, result.feedback


@pytest.mark.parametrize("package_name", [pytest.param("matplotlib", marks=pytest.mark.slow),  # its import: 1 s
                                          "no_such_package_anywhere"])
def test_a_package_the_course_does_not_list_is_one_plain_message(tmp_path, package_name):
    source = EINOPS_SDPA.replace("import einx\n", f"import einx\nimport {package_name}\n")
    result = grade(package_with(tmp_path, source), "scaled_dot_product_attention")
    assert result.status == Status.ERROR and result.score == 0
    assert f"your code imports {package_name} (attention.py), which is not available in this course" in result.feedback
    assert "einops, einx" in result.feedback and "Traceback" not in result.feedback


def test_an_import_inside_a_function_is_caught_when_it_runs(tmp_path):
    lazy = "    import matplotlib.pyplot  # noqa\n    scores = torch.einsum"
    source = EINOPS_SDPA.replace("    scores = torch.einsum", lazy)
    result = grade(package_with(tmp_path, source), "scaled_dot_product_attention")
    assert "your code imports matplotlib (attention.py)" in result.feedback


def test_libraries_importing_their_own_dependencies_are_not_affected(tmp_path):
    """torch's and einx's own imports (sympy, numpy, ...) come from their modules, not the student's."""
    source = EINOPS_SDPA + "\nimport torch.distributions  # pulls more of torch's own imports\n"
    assert grade(package_with(tmp_path, source), "scaled_dot_product_attention").status == Status.PASSED


@pytest.mark.parametrize("line, relative", [("from softmax import run_softmax", ".softmax"),
                                            ("from pkg.softmax import run_softmax", ".softmax"),
                                            ("import pkg", ".")])
def test_the_students_own_module_by_a_bare_name_is_named_as_such(tmp_path, line, relative):
    """`from softmax import ...` works when a file is run as a script; in a package it was "softmax is not
    available in this course", which reads as a missing library. The feedback now says it is their own module
    and how the package spells it."""
    result = grade(package_with(tmp_path, f"{line}\n" + EINOPS_SDPA), "scaled_dot_product_attention")
    assert result.status == Status.ERROR and "not available in this course" not in result.feedback
    assert (f"your own package or one of its modules, by its bare name, which works only when a file is run as "
            f"a script: import it relatively, `from {relative} import ...`") in result.feedback
