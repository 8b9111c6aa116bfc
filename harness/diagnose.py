"""Misconception diagnosis: when an output is wrong, run known buggy variants on the same inputs.

A spec lists misconception ids with an en/zh message; the functions live with the reference in
reference/misconceptions/<exercise>.py under the same id and take the run_* function's arguments.
"""

import importlib
from typing import Any

import torch

from harness.compare import matches
from harness.spec import ExerciseSpec, Misconception, Tolerance


def misconception_function(exercise: ExerciseSpec, misconception: Misconception):
    module = importlib.import_module(f"reference.misconceptions.{exercise.id}")
    fn = getattr(module, misconception.id, None)
    if fn is None:
        raise LookupError(f"{exercise.path}: misconception {misconception.id!r} has no function in "
                          f"reference/misconceptions/{exercise.id}.py")
    return fn


def diagnose(exercise: ExerciseSpec, args: dict[str, Any], got: torch.Tensor,
             tol: Tolerance) -> Misconception | None:
    """The first misconception whose output equals `got` (within tolerance) on these inputs."""
    for misconception in exercise.misconceptions:
        fn = misconception_function(exercise, misconception)
        try:
            with torch.no_grad():
                candidate = fn(**{k: v.clone() if isinstance(v, torch.Tensor) else v for k, v in args.items()})
        except Exception:
            continue  # a buggy variant may legitimately crash on some inputs
        if isinstance(candidate, torch.Tensor) and matches(got, candidate, tol):
            return misconception
    return None
