"""fixtures/<exercise>/<case>.npz: the saved inputs and float64 expected output of every case.

Arrays are named `arg.<name>` and `expected` (`expected.<output>` for a function returning several);
misconception outputs `misconception.<id>` (`.<output>`); the gradient law's cotangent and the reference's
gradients `gradient.cotangent` (`.<i>` per output) and `gradient.<argument>`. Read with allow_pickle=False.
bfloat16 inputs are stored as float32 (exact) and cast back using the case's recipe; layouts are re-applied
on load.
"""

from pathlib import Path
from typing import Any

import numpy as np
import torch

from attnlab.core import inputs
from attnlab.core.outputs import Output, join, parts
from attnlab.core.spec import CaseSpec, ExerciseSpec


def fixture_path(fixtures_dir: Path, exercise: ExerciseSpec, case: CaseSpec) -> Path:
    return Path(fixtures_dir) / exercise.id / f"{case.name}.npz"


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().cpu().contiguous()
    return (t.float() if t.dtype in (torch.bfloat16, torch.float16) else t).numpy()


def _output_arrays(prefix: str, output: Output, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """`prefix` for one output, `prefix.<name>` for each of several, in float64."""
    tensors = parts(output)
    if len(tensors) == 1:
        return {prefix: _to_numpy(tensors[0].to(torch.float64))}
    return {f"{prefix}.{name}": _to_numpy(t.to(torch.float64)) for name, t in zip(names, tensors)}


def arrays(args: dict[str, Any], expected: Output | None, misconceptions: dict[str, Output] | None = None,
           gradients: tuple[Output, dict[str, torch.Tensor]] | None = None,
           names: tuple[str, ...] = ("output",)) -> dict[str, np.ndarray]:
    """Inputs, the float64 expected output(s) and, for checks where the reference is not shipped, each
    misconception's output(s) on these inputs (outputs, never code: a misconception is a near-solution) and,
    when a gradient law uses this case, its cotangent and the reference's gradients. `names`: the outputs'."""
    out = {f"arg.{k}": _to_numpy(v) for k, v in args.items() if isinstance(v, torch.Tensor)}
    if expected is not None:
        out.update(_output_arrays("expected", expected, names))
    for name, value in (misconceptions or {}).items():
        out.update(_output_arrays(f"misconception.{name}", value, names))
    if gradients is not None:
        cotangent, grads = gradients
        out.update(_output_arrays("gradient.cotangent", cotangent, tuple(map(str, range(len(parts(cotangent)))))))
        out.update({f"gradient.{name}": _to_numpy(g.to(torch.float64)) for name, g in grads.items()})
    return out


def save(path: Path, data: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        np.savez(fh, **data)


def read(path: Path, prefixes: tuple[str, ...] | None = None) -> dict[str, np.ndarray]:
    """The arrays of a fixture file, or only those whose names start with one of `prefixes`: a case's
    inputs and expected output are a third of what it stores (its misconceptions' outputs are most of the
    rest, needed only when it fails), and each array read parses a header."""
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files if prefixes is None or k.startswith(prefixes)}


def _stored_output(data: dict[str, np.ndarray], prefix: str, names: tuple[str, ...]) -> Output | None:
    if prefix in data:
        return torch.from_numpy(data[prefix])
    keys = [f"{prefix}.{name}" for name in names]
    if len(names) > 1 and all(key in data for key in keys):
        return join([torch.from_numpy(data[key]) for key in keys], single=False)
    return None


def stored_misconceptions(path: Path, exercise: ExerciseSpec) -> dict[str, Output]:
    """Misconception outputs saved with a fixture: {misconception id: output}."""
    data, names = read(path), tuple(r.name for r in exercise.returns)
    found = {m.id: _stored_output(data, f"misconception.{m.id}", names) for m in exercise.misconceptions}
    return {key: value for key, value in found.items() if value is not None}


def stored_gradients(path: Path, wrt: tuple[str, ...],
                     outputs: int = 1) -> tuple[Output, dict[str, torch.Tensor]] | None:
    """The gradient law's cotangent and the reference's gradients saved with a fixture, if all are there."""
    data = read(path)
    cotangent = _stored_output(data, "gradient.cotangent", tuple(map(str, range(outputs))))
    if cotangent is None or not all(f"gradient.{name}" in data for name in wrt):
        return None
    return cotangent, {name: torch.from_numpy(data[f"gradient.{name}"]) for name in wrt}


def load_case(path: Path, case: CaseSpec, exercise: ExerciseSpec) -> tuple[dict[str, Any], Output | None]:
    """The case's arguments (tensors from the file, the rest from the recipe) and its expected output."""
    data = read(path, ("arg.", "expected"))
    args: dict[str, Any] = {}
    for name, recipe in case.args.items():
        key = f"arg.{name}"
        if key in data:
            t = torch.from_numpy(data[key]).to(inputs.DTYPES[recipe.dtype])
            args[name] = inputs.apply_layout(t, recipe.layout)
        else:
            args[name] = inputs.build_arg(recipe, seed=recipe.seed)
    return args, _stored_output(data, "expected", tuple(r.name for r in exercise.returns))
