"""Misconception diagnosis: when an output is wrong, run known buggy variants on the same inputs.

A spec lists misconception ids with an en/zh message; the functions live with the reference in
reference/misconceptions/<exercise>.py under the same id and take the run_* function's arguments.
"""

import importlib
from typing import Any

import torch

from attnlab.core.compare import matches
from attnlab.core.spec import ExerciseSpec, Misconception, Tolerance


def misconception_function(exercise: ExerciseSpec, misconception: Misconception):
    module = importlib.import_module(f"reference.misconceptions.{exercise.id}")
    fn = getattr(module, misconception.id, None)
    if fn is None:
        raise LookupError(f"{exercise.path}: misconception {misconception.id!r} has no function in "
                          f"reference/misconceptions/{exercise.id}.py")
    return fn


def run_misconception(exercise: ExerciseSpec, misconception: Misconception,
                      args: dict[str, Any]) -> torch.Tensor | None:
    """The misconception's output on `args`, or None where that buggy variant crashes."""
    fn = misconception_function(exercise, misconception)
    try:
        with torch.no_grad():
            out = fn(**{k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in args.items()})
    except Exception:
        return None
    return out if isinstance(out, torch.Tensor) else None


def diagnose(exercise: ExerciseSpec, args: dict[str, Any], got: torch.Tensor, tol: Tolerance, *,
             stored: dict[str, torch.Tensor] | None = None) -> Misconception | None:
    """The first misconception whose output equals `got` (within tolerance) on these inputs: computed
    live when the reference package is here, else read from the fixture (`stored`)."""
    for misconception in exercise.misconceptions:
        if stored is not None:
            candidate = stored.get(misconception.id)
        else:
            candidate = run_misconception(exercise, misconception, args)
        if candidate is not None and matches(got, candidate, tol):
            return misconception
    return None
