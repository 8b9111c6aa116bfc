"""Every framework against the same specs: its reference (reference/<framework>/) passes every check that
applies, its untouched template scores 0, and what does not apply is exactly what NOT_APPLICABLE below says
(the README's table). A framework not installed here is skipped; CI installs each (README: Frameworks).
"""

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.impl import InProcessImpl
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec import ExerciseSpec
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

OTHERS = ("numpy", "jax", "mindspore")
# (framework, exercise) -> the checks that do not apply there, and why (README: Frameworks)
NOT_APPLICABLE: dict[tuple[str, str], set[str]] = {
    ("numpy", "softmax"): {"gradient"},  # NumPy has no autograd
    # MindSpore 2.10 has no CPU kernel that takes bfloat16 (exp, matmul, ...): its bfloat16 cases
    **{("mindspore", exercise): {"bfloat16"} for exercise in (
        "softmax", "simple_self_attention", "self_attention", "causal_attention", "scaled_dot_product_attention",
        "multihead_attention_wrapper", "multihead_self_attention", "gpt2_causal_self_attention",
        "multihead_self_attention_with_rope", "cross_attention", "grouped_query_attention",
        "sliding_window_attention", "flash_attention", "attention_backward")},
    ("mindspore", "rope"): {"bfloat16", "bfloat16_large_positions"},
    ("mindspore", "kv_cache_attention"): {"bfloat16_decode"},
    ("mindspore", "paged_attention"): {"bfloat16"},
    ("mindspore", "latent_attention"): {"bfloat16"},
    # Triton's interpreter computes bfloat16 on its bit patterns: counted on CUDA only (docs/triton.md)
    ("torch", "triton_flash_forward"): {"bfloat16"},
    ("torch", "triton_flash_backward"): {"bfloat16"},
}
# NumPy has no autograd: the gradient law of every other exercise that has one is not applicable either
NOT_APPLICABLE.update({("numpy", exercise): {"gradient"} for exercise in (
    "simple_self_attention", "scaled_dot_product_attention", "self_attention", "causal_attention",
    "multihead_attention_wrapper", "multihead_self_attention", "gpt2_causal_self_attention", "rope",
    "multihead_self_attention_with_rope", "cross_attention", "kv_cache_attention", "grouped_query_attention",
    "sliding_window_attention", "latent_attention")})


def written(framework: str) -> list[ExerciseSpec]:
    """The coded exercises whose module the framework's reference provides."""
    course = load_course(paths.SPEC_DIR)
    ref = paths.reference_dir(frameworks.adapter(framework))
    return [e for e in course.all_coded if framework in e.frameworks and (ref / f"{e.module}.py").is_file()
            and f"def {e.function}(" in (ref / f"{e.module}.py").read_text(encoding="utf-8")]


def budgeted(exercise) -> bool:
    """An exercise with a memory-budgeted case (flash_attention's 12288 tokens: seconds of arithmetic): slow."""
    return any(case.max_tensor_mb is not None for case in exercise.cases)


def cases(framework_names=OTHERS):
    found = []
    for framework in framework_names:
        if not paths.reference_dir(frameworks.adapter(framework)).is_dir():
            continue
        found += [pytest.param(framework, e, id=f"{framework}-{e.id}",
                               marks=[pytest.mark.skipif(not frameworks.adapter(framework).available(),
                                                         reason=f"{framework} is not installed here"),
                                      *([pytest.mark.slow] if framework == "jax" or budgeted(e) else [])])
                  for e in written(framework)]
    return found


def graded(framework: str, exercise: ExerciseSpec, package):
    course = load_course(paths.SPEC_DIR, framework=framework) if framework in exercise.frameworks else None
    impl = InProcessImpl(package, libraries=course.libraries if course else (), adapter=frameworks.adapter(framework))
    return grade_exercise(make_context(exercise.in_framework(framework), impl))


@pytest.mark.parametrize(("framework", "exercise"), cases())
def test_reference_passes_every_check_that_applies(framework, exercise):
    result = graded(framework, exercise, paths.reference_dir(frameworks.adapter(framework)))
    failed = [f"{c.name} ({c.status}): {c.message}" for c in result.checks
              if not c.passed and c.status != Status.NOT_APPLICABLE]
    assert not failed, "\n".join(failed)
    assert result.score == exercise.points
    skipped = {c.name for c in result.checks if c.status == Status.NOT_APPLICABLE}
    assert skipped == NOT_APPLICABLE.get((framework, exercise.id), set())


@pytest.mark.parametrize(("framework", "exercise"), cases())
def test_template_scores_nothing(framework, exercise):
    result = graded(framework, exercise, paths.template_dir(frameworks.adapter(framework)))
    assert result.score == 0 and result.status == Status.NOT_IMPLEMENTED, result.feedback


@pytest.mark.parametrize("framework", [f for f in OTHERS if paths.reference_dir(frameworks.adapter(f)).is_dir()])
def test_a_framework_with_references_has_one_for_every_exercise_it_offers(framework):
    """An exercise a spec offers in a framework (`frameworks:`) has that framework's reference: a missing one
    would silently drop out of the two tests above."""
    course = load_course(paths.SPEC_DIR)
    offered = {e.id for e in course.all_coded if framework in e.frameworks}
    assert {e.id for e in written(framework)} == offered
