"""Misconception diagnosis: when an output is wrong, run known buggy variants on the same inputs.

A spec lists misconception ids with an en/zh message; the functions live with the reference in
reference/misconceptions/<exercise>.py under the same id and take the run_* function's arguments.
"""

import importlib
from collections.abc import Callable
from typing import Any

import torch

from attnlab.core import precision
from attnlab.core.compare import matches, tolerance_for
from attnlab.core.outputs import Output, as_output, parts
from attnlab.core.spec import ExerciseSpec, Misconception


def misconception_function(exercise: ExerciseSpec, misconception: Misconception):
    module = importlib.import_module(f"reference.misconceptions.{exercise.id}")
    fn = getattr(module, misconception.id, None)
    if fn is None:
        raise LookupError(f"{exercise.path}: misconception {misconception.id!r} has no function in "
                          f"reference/misconceptions/{exercise.id}.py")
    return fn


def run_misconception(exercise: ExerciseSpec, misconception: Misconception, args: dict[str, Any]) -> Output | None:
    """The misconception's output on `args`, or None where that buggy variant crashes."""
    fn = misconception_function(exercise, misconception)
    try:
        with torch.no_grad():
            return as_output(fn(**{k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in args.items()}),
                             misconception.id)
    except Exception:
        return None


def same_output(exercise: ExerciseSpec, got: Output, candidate: Output) -> bool:
    """Every output equal within the spec's tolerance for its dtype (NaN where the other has NaN)."""
    got_parts, candidate_parts = parts(got), parts(candidate)
    return len(got_parts) == len(candidate_parts) and all(
        matches(g, c, tolerance_for(exercise.tolerance, g.dtype)) for g, c in zip(got_parts, candidate_parts))


def diagnose(exercise: ExerciseSpec, args: dict[str, Any], got: Output, *, expected: Output | None = None,
             stored: dict[str, Output] | None = None,
             live: Callable[[Misconception], Output | None] | None = None) -> Misconception | None:
    """Float32 precision in a float64 output where `got` is `expected` but for float32 rounding
    (attnlab.core.precision), else the first misconception whose output equals `got` (within tolerance) on
    these inputs and, where `expected` is given, differs from it there: computed live when the reference
    package is here (by `live` where given, else on `args`), else read from the fixture (`stored`)."""
    if precision.lost_to_float32(exercise, got, expected):
        return precision.diagnosis()
    for misconception in exercise.misconceptions:
        if stored is not None:
            candidate = stored.get(misconception.id)
        elif live is not None:
            candidate = live(misconception)
        else:
            candidate = run_misconception(exercise, misconception, args)
        if candidate is None or (expected is not None and same_output(exercise, candidate, expected)):
            continue  # a mistake that changes nothing on these inputs cannot be why they came out wrong
        if same_output(exercise, got, candidate):
            return misconception
    return None
