"""The judge survives any output: every check of every exercise (cases, laws, diagnosis, the gradient law,
the picture) is fed hostile outputs (tests/hostile.py) in each framework, through that framework's adapter,
and each must end as that check's own result with a message, never as an exception out of the checks and
never as an internal error of the judge (which is what a judge bug, not a student's output, becomes)."""

import dataclasses
import sys
from pathlib import Path

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.scoring import load_reference, make_context, run_checks, summarise
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from hostile import NATIVE_EXTRAS, HostileImpl, variant_names  # noqa: E402

FRAMEWORKS = ("torch", "numpy", "jax", "mindspore")
SEED = 20261126


def _usable(framework: str) -> bool:
    return frameworks.adapter(framework).available()


def unbudgeted(exercise):
    """The exercise without its budgeted cases (max_tensor_mb: large inputs, whose reference outputs take
    minutes to compute): their outputs are checked by the same code as every other case's."""
    used = {prop.params.get("base_case") for prop in exercise.properties}
    return dataclasses.replace(exercise, cases=tuple(c for c in exercise.cases
                                                     if c.max_tensor_mb is None or c.name in used))


def variants(exercise, framework: str) -> list[str]:
    return variant_names(len(exercise.returns)) + list(NATIVE_EXTRAS[framework])


def _escapes(framework: str) -> list[str]:
    """Every (exercise, variant) whose checks raised out of the checks or ended as an internal error."""
    from attnlab.student.viz import picture_of, student_picture

    course = load_course(paths.SPEC_DIR)
    reference = load_reference()
    problems = []
    for exercise in course.all_coded:
        if framework not in exercise.frameworks:  # not written in this framework (triton_flash_forward: torch)
            continue
        exercise = unbudgeted(exercise.in_framework(framework))
        for variant in variants(exercise, framework):
            impl = HostileImpl(framework, variant, reference)
            try:
                # a fresh seed: each case's inputs and expected output are drawn once, then shared by every variant
                checks = run_checks(make_context(exercise, impl, reference=reference, fresh_seed=SEED))
                summarise(exercise, checks, "en")
                _, picture_problem = student_picture(exercise, impl) if picture_of(exercise) else (None, None)
            except Exception as exc:  # noqa: BLE001 -- what the test looks for
                problems.append(f"{exercise.id} / {variant}: raised {type(exc).__name__}: {exc}")
                continue
            if picture_problem is not None and picture_problem.key == "internal_check":
                problems.append(f"{exercise.id} / {variant} / picture: the picture's own code failed")
            for check in checks:
                if check.status == Status.INTERNAL_ERROR:
                    problems.append(f"{exercise.id} / {variant} / {check.name}: internal error\n{check.internal}")
                elif not check.passed and not check.message:
                    problems.append(f"{exercise.id} / {variant} / {check.name}: {check.status} without a message")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_hostile_outputs_never_escape_the_checks(framework):
    if not _usable(framework):
        pytest.skip(f"{framework} is not installed here")
    problems = _escapes(framework)
    assert not problems, f"{len(problems)} escapes:\n" + "\n".join(problems[:40])
