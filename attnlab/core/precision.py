"""Float32 precision in a float64 result: the cause of a small mismatch that no exercise's misconception names.

Correct code that takes one step in float32, such as the softmax of Llama, Mistral and OpenNMT
(`softmax(scores.float()).type_as(q)`), is right for bfloat16 and float32 inputs but rounds float64 ones to
float32's 24-bit mantissa: the result comes back as float64, off by about 1e-7 relative. A float64 case is
there to see that float64 is kept, so this fails it (its tolerance is about 1e-10); the feedback names the
precision instead of an exercise's misconception or its general hint (a mask hint for correct attention).
It is checked before the misconceptions: an output within float32 rounding of the right one is no mistake of
logic, and no misconception's output lies that close to the reference.
"""

import torch

from attnlab.core.compare import matches, tolerance_for
from attnlab.core.i18n import LANGS, t
from attnlab.core.outputs import Output, parts
from attnlab.core.spec import ExerciseSpec, Misconception, Text

FLOAT32_PRECISION = "float32_precision"  # its diagnosis id, beside the spec's misconception ids


def float32_sized(got: torch.Tensor, expected: torch.Tensor, exercise: ExerciseSpec) -> bool:
    """`got` is float64, within the exercise's float32 tolerance of `expected` (the error that computing in
    float32 leaves, as the spec measured it) and beyond its float64 tolerance somewhere."""
    if got.dtype != torch.float64 or not isinstance(expected, torch.Tensor) or got.shape != expected.shape:
        return False
    float32_tolerance = tolerance_for(exercise.tolerance, torch.float32)
    return (got.numel() > 0 and bool(torch.isfinite(got).all())
            and matches(got, expected, float32_tolerance)
            and not matches(got, expected, tolerance_for(exercise.tolerance, torch.float64)))


def lost_to_float32(exercise: ExerciseSpec, got: Output, expected: Output | None) -> bool:
    """Some float64 output right but for float32 rounding, and every other output within its tolerance."""
    if expected is None or len(parts(got)) != len(parts(expected)):
        return False
    rounded = False
    for g, e in zip(parts(got), parts(expected)):
        if float32_sized(g, e, exercise):
            rounded = True
        elif not (g.shape == e.shape and matches(g, e, tolerance_for(exercise.tolerance, g.dtype))):
            return False
    return rounded


def diagnosis() -> Misconception:
    """The precision diagnosis, shaped as a misconception (its sentence from the catalogue)."""
    return Misconception(FLOAT32_PRECISION, Text(**{lang: t("diagnosis_float32_precision", lang) for lang in LANGS}))


def hint(lang: str) -> str:
    return t("hint_float32_precision", lang)
