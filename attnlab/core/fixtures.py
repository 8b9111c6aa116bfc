"""fixtures/<exercise>/<case>.npz: the saved inputs and float64 expected output of every case.

Arrays are named `arg.<name>` and `expected`; read with allow_pickle=False. bfloat16 inputs are stored
as float32 (exact) and cast back using the case's recipe; layouts are re-applied on load.
"""

from pathlib import Path
from typing import Any

import numpy as np
import torch

from attnlab.core import inputs
from attnlab.core.spec import CaseSpec, ExerciseSpec


def fixture_path(fixtures_dir: Path, exercise: ExerciseSpec, case: CaseSpec) -> Path:
    return Path(fixtures_dir) / exercise.id / f"{case.name}.npz"


def _to_numpy(t: torch.Tensor) -> np.ndarray:
    t = t.detach().cpu().contiguous()
    return (t.float() if t.dtype in (torch.bfloat16, torch.float16) else t).numpy()


def arrays(args: dict[str, Any], expected: torch.Tensor | None,
           misconceptions: dict[str, torch.Tensor] | None = None,
           gradients: tuple[torch.Tensor, dict[str, torch.Tensor]] | None = None) -> dict[str, np.ndarray]:
    """Inputs, the float64 expected output and, for checks where the reference is not shipped, each
    misconception's output on these inputs (outputs, never code: a misconception is a near-solution) and,
    when a gradient law uses this case, its cotangent and the reference's gradients."""
    out = {f"arg.{k}": _to_numpy(v) for k, v in args.items() if isinstance(v, torch.Tensor)}
    if expected is not None:
        out["expected"] = _to_numpy(expected.to(torch.float64))
    for name, value in (misconceptions or {}).items():
        out[f"misconception.{name}"] = _to_numpy(value.to(torch.float64))
    if gradients is not None:
        cotangent, grads = gradients
        out["gradient.cotangent"] = _to_numpy(cotangent.to(torch.float64))
        out.update({f"gradient.{name}": _to_numpy(g.to(torch.float64)) for name, g in grads.items()})
    return out


def save(path: Path, data: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        np.savez(fh, **data)


def read(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


def stored_misconceptions(path: Path) -> dict[str, torch.Tensor]:
    """Misconception outputs saved with a fixture: {misconception id: output}."""
    return {k.removeprefix("misconception."): torch.from_numpy(v) for k, v in read(path).items()
            if k.startswith("misconception.")}


def stored_gradients(path: Path, wrt: tuple[str, ...]) -> tuple[torch.Tensor, dict[str, torch.Tensor]] | None:
    """The gradient law's cotangent and the reference's gradients saved with a fixture, if all are there."""
    data = read(path)
    keys = ["gradient.cotangent", *(f"gradient.{name}" for name in wrt)]
    if not all(key in data for key in keys):
        return None
    return torch.from_numpy(data[keys[0]]), {name: torch.from_numpy(data[f"gradient.{name}"]) for name in wrt}


def load_case(path: Path, case: CaseSpec) -> tuple[dict[str, Any], torch.Tensor | None]:
    """The case's arguments (tensors from the file, the rest from the recipe) and its expected output."""
    data = read(path)
    args: dict[str, Any] = {}
    for name, recipe in case.args.items():
        key = f"arg.{name}"
        if key in data:
            t = torch.from_numpy(data[key]).to(inputs.DTYPES[recipe.dtype])
            args[name] = inputs.apply_layout(t, recipe.layout)
        else:
            args[name] = inputs.build_arg(recipe, seed=recipe.seed)
    expected = torch.from_numpy(data["expected"]) if "expected" in data else None
    return args, expected
