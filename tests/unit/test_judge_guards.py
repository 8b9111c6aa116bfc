"""The judge checks a student's output before any law, comparison or picture reads it, and a failure of its own
code is that check's internal error (the traceback kept), never an exception out of the checks."""

import dataclasses

import torch

from attnlab.core import frameworks, paths
from attnlab.core.checks import run_property
from attnlab.core.compare import compare, excess, matches
from attnlab.core.impl import FileImpl
from attnlab.core.internal import internal_check
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec import Tolerance
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

COURSE = load_course(paths.SPEC_DIR)

# the bug of issue 22: d_model // 2 (sin, cos) pairs, so d_model = 1 gets no column and odd widths lose one
ODD_WIDTHS_DROPPED = """
def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    even = torch.arange(0, 2 * (d_model // 2), 2, dtype=torch.float64)
    angles = positions.to(torch.float64)[..., None] * base ** (-even / d_model)
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(-2).to(torch.float32)
"""


def impl_from(tmp_path, source: str) -> FileImpl:
    path = tmp_path / "impl.py"
    path.write_text("import torch\n" + source)
    return FileImpl(path, adapter=frameworks.default())


def test_an_encoding_without_its_columns_fails_the_laws_that_read_them(tmp_path):
    exercise = COURSE.find("sinusoidal_positional_encoding")
    result = grade_exercise(make_context(exercise, impl_from(tmp_path, ODD_WIDTHS_DROPPED)))
    checks = {c.name: c for c in result.checks}
    assert not any(c.status == Status.INTERNAL_ERROR for c in result.checks), result.feedback
    law = checks["sine_then_cosine"]  # issue 22: IndexError in the law stopped grade.py
    assert law.status == Status.FAILED
    assert "(3, 0), expected Float32 (*batch d_model) with batch=(3,), d_model=1" in law.message, law.message
    assert checks["one_column"].status == Status.FAILED and "d_model=1" in checks["one_column"].message
    assert checks["positions_0_to_7_default_base"].passed  # even widths are right, and said so


def test_an_extra_batch_dim_is_a_shape_failure_before_a_law_reads_it(tmp_path):
    """`...` binds no name in jaxtyping: (1, seq, d_k) for a (seq, d_k) input passed the annotation, and
    rope's relative-position law indexed past its end."""
    impl = impl_from(tmp_path, "def run_rope(d_k, theta, max_seq_len, in_query_or_key, token_positions):\n"
                               "    return in_query_or_key[None].clone()\n")
    ctx = make_context(COURSE.find("rope"), impl)
    prop = next(p for p in ctx.exercise.properties if p.name == "relative_position")
    result = run_property(ctx, prop)
    assert result.status == Status.FAILED, result.message
    assert "float32 (1, 2, 2), expected Float (... seq d_k)" in result.message and "...=()" in result.message


def test_a_failing_law_is_an_internal_error_of_that_check_alone(tmp_path):
    exercise = COURSE.find("softmax")

    def broken_law(ctx, **params):
        raise ZeroDivisionError("the law's own bug")

    broken = dataclasses.replace(exercise.properties[0], law=broken_law, params={})
    exercise = dataclasses.replace(exercise, properties=(broken, *exercise.properties[1:]))
    impl = impl_from(tmp_path, "def run_softmax(in_features, dim):\n"
                               "    e = (in_features - in_features.amax(dim, keepdim=True)).exp()\n"
                               "    return e / e.sum(dim, keepdim=True)\n")
    result = grade_exercise(make_context(exercise, impl))
    failed = [c for c in result.checks if not c.passed]
    assert [c.name for c in failed] == [broken.name]
    check = failed[0]
    assert check.status == Status.INTERNAL_ERROR and check.kind == "property"
    assert "ZeroDivisionError" in check.message and "the law's own bug" not in check.message
    assert "Traceback" in check.internal and "broken_law" in check.internal
    assert check.to_json()["internal"] == check.internal
    assert result.status == Status.FAILED and 0 < result.score < result.max_score  # the rest still scores
    assert "评分器" in internal_check(exercise.id, broken.name, "property", ZeroDivisionError(), "zh").message


def test_comparisons_check_shape_and_dtype_before_reading_values():
    tol = Tolerance(atol=1e-6, rtol=0.0)
    expected = torch.zeros(3, 4, dtype=torch.float64)
    assert compare(torch.zeros(3, 1), expected, tol).key == "compare_shape"  # would broadcast and pass
    assert compare(torch.zeros(4), expected, tol).key == "compare_shape"  # would raise
    assert compare(torch.zeros(3, 4, dtype=torch.complex64), expected, tol).key == "compare_dtype"
    assert compare(torch.zeros(3, 4).to_sparse(), expected, tol).key == "compare_dtype"
    assert excess(torch.zeros(3, 1), expected, tol) == float("inf")
    assert not matches(torch.zeros(3, 1), expected, tol)
    assert compare(torch.zeros(3, 4), expected, tol) is None


def test_a_scratch_dir_that_vanishes_is_that_submissions_internal_error_not_the_class(tmp_path, monkeypatch):
    """The judge's own failure before any exercise (here its scratch dir removed under it, as a sweep racing a
    concurrent grade.py once did) fails that submission with the traceback kept: grade_submission returns."""
    from attnlab.core import config
    from attnlab.grade.batch.submissions import Submission
    from attnlab.grade.judge import judge
    from attnlab.grade.sandbox.scratch import remove_tree

    monkeypatch.setattr(judge.runs, "mark", lambda directory: remove_tree(directory))
    run = config.resolve(assignment="attention", framework="torch", lang="en")
    options = judge.JudgeOptions(run=run, hidden_paths=())
    result = judge.grade_submission(Submission(name="vanished", source=paths.template_dir(frameworks.default())),
                                    options)
    coded = [e for e in result.exercises if e.id in {x.id for x in run.course.exercises}]
    assert len(coded) == len(run.course.exercises) and result.score == 0
    assert {e.status for e in coded} == {Status.INTERNAL_ERROR}
    assert "FileNotFoundError" in coded[0].checks[0].internal
