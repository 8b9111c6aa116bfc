"""Laws: what every correct implementation obeys, whatever its shapes and inputs.

A law is a function `(ctx, **params)` marked with `@law`; a spec names it under `properties:` with its
params, which are checked against the function's signature when the spec loads. It raises CheckFailure
(a catalogue message) saying which law broke and where. The generic laws below take every argument name
from the spec; a law that serves one exercise lives in that exercise's spec/<id>.py.

Random search uses hypothesis with bounded, derandomized settings: `@law(draws=strategies)` names the
function returning the keyword strategies of its examples, which `drawn` draws once per process (from the
generated fixtures/_laws.json when it is current) so every implementation is checked on the same ones.
A law that calls the implementation more than once builds all its inputs first and takes the outputs
from `ctx.outputs(calls)`: the grader sends them to the runner in one request, and the first failure is
raised where calling one by one would have raised it.
"""

import functools
import hashlib
import inspect
import json
import threading
from collections.abc import Callable
from typing import Any

import torch

from attnlab.core import paths, precision
from attnlab.core.compare import compare, tolerance_for
from attnlab.core.i18n import Message
from attnlab.core.outcomes import CheckFailure, NotRun

GENERIC: dict[str, Callable[..., None]] = {}  # the laws below, by name
DRAWS: dict[str, Callable[[], dict]] = {}  # law name -> its hypothesis strategies, for every @law(draws=...)
_DRAWN: dict[tuple, list[dict[str, Any]]] = {}
_DRAW_LOCK = threading.Lock()
LAWS_FILE = paths.FIXTURES_DIR / "_laws.json"  # generated: python -m attnlab.instructor.generate laws


def law(fn: Callable | None = None, *, draws: Callable[[], dict] | None = None):
    """Mark `fn` as a law (usable as `@law` or `@law(draws=strategies)`)."""
    def mark(f: Callable) -> Callable:
        f.is_law = True
        if draws is not None:
            DRAWS[f.__name__] = draws
        return f
    return mark(fn) if fn is not None else mark


def generic(fn: Callable) -> Callable:
    GENERIC[fn.__name__] = law(fn)
    return fn


def parameters(fn: Callable) -> dict[str, inspect.Parameter]:
    """A law's spec parameters: its keyword parameters after `ctx`."""
    return dict(list(inspect.signature(fn).parameters.items())[1:])


def drawn(name: str, examples: int) -> list[dict[str, Any]]:
    """The inputs hypothesis generates for law `name` (bounded, derandomized): read from the generated
    fixtures/_laws.json when it matches the law's current strategies, else drawn now. Either way once per
    process, then reused for every implementation checked (a grading run checks hundreds). Without
    shrinking, hypothesis's draws never depend on the test's outcome, so looping over them until the
    first failure is what @given would have run."""
    key = (name, examples)
    with _DRAW_LOCK:
        if key not in _DRAWN:
            stored = _stored_draws().get(name)
            if stored and stored["examples"] == examples and stored["source"] == strategies_digest(name):
                _DRAWN[key] = stored["draws"]
            else:
                _DRAWN[key] = draw_examples(name, examples)
    return _DRAWN[key]


def draw_examples(name: str, examples: int) -> list[dict[str, Any]]:
    """What hypothesis generates for the law's strategies, in order, as plain JSON data."""
    from hypothesis import HealthCheck, Phase, given, settings

    seen: list[dict[str, Any]] = []

    @settings(max_examples=examples, derandomize=True, database=None, deadline=None,
              phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))
    @given(**DRAWS[name]())
    def record(**example):
        seen.append(example)

    record()
    return json.loads(json.dumps(seen))  # tuples become lists, as when read back from the file


def strategies_digest(name: str) -> str:
    """Identifies the law's strategies (their source): stored draws of other strategies are stale."""
    return hashlib.sha256(inspect.getsource(DRAWS[name]).encode()).hexdigest()[:16]


@functools.cache
def _stored_draws() -> dict[str, dict]:
    try:
        data = json.loads(LAWS_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # e.g. a handout without it: draw live
    return {entry["law"]: entry for entry in data.get("laws", []) if isinstance(entry, dict)}


# -- helpers for laws -------------------------------------------------------------------------------
def base_args(ctx, case_name: str) -> dict[str, Any]:
    """The inputs of the spec's case `case_name` (validated to exist when the spec loads)."""
    case = next(c for c in ctx.exercise.cases if c.name == case_name)
    return ctx.case_data(case)[0]


def expect_close(ctx, got: torch.Tensor, expected: torch.Tensor, what: Message) -> None:
    mismatch = compare(got, expected, tolerance_for(ctx.exercise.tolerance, got.dtype))
    if mismatch is not None:
        failure = CheckFailure("law_detail", what=what, detail=mismatch)
        if precision.float32_sized(got, expected, ctx.exercise):  # say so, not the exercise's general hint
            failure = failure.with_hint(Message("hint_float32_precision"))
        raise failure


def noise(like: torch.Tensor, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(like.shape, generator=g, dtype=torch.float64).to(like.dtype)


# -- generic laws -----------------------------------------------------------------------------------
@generic
def causality(ctx, base_case: str, arg: str) -> None:
    """Changing tokens after position t (of `arg`, tokens along dim -2) leaves every output at positions ≤ t
    unchanged."""
    args = base_args(ctx, base_case)
    x = args[arg]
    seq = x.shape[-2]
    cut = max(1, seq // 2)
    future = x.clone()
    future[..., cut:, :] = noise(future[..., cut:, :], 11) * 3
    before, after = ctx.outputs([args, {**args, arg: future}])
    expect_close(ctx, after[..., :cut, :], before[..., :cut, :],
                 Message("law_causality", {"first": cut, "last": seq - 1, "upto": cut - 1}))


@generic
def permutation_equivariance(ctx, base_case: str, permute: dict, output_dim: int | None) -> None:
    """Permuting tokens (the named args along the given dims) permutes the output the same way along
    `output_dim`, or leaves it unchanged when output_dim is null (e.g. permuting keys with their values)."""
    args = base_args(ctx, base_case)
    first = args[next(iter(permute))]
    n = first.shape[permute[next(iter(permute))]]
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(5))
    moved = {**args, **{name: args[name].index_select(dim, perm) for name, dim in permute.items()}}
    out, out_moved = ctx.outputs([args, moved])
    expected = out if output_dim is None else out.index_select(output_dim, perm)
    key = "law_permutation_invariant" if output_dim is None else "law_permutation_equivariant"
    expect_close(ctx, out_moved, expected, Message(key, {"names": " and ".join(permute), "perm": perm.tolist()}))


@generic
def gradient(ctx, base_case: str, wrt: list) -> None:
    """Gradients through the implementation equal the reference's (float64, a random cotangent). The
    reference's gradients come from the reference package, or from the case's fixture where it is not
    shipped; with neither, the law is not run, and says so."""
    from attnlab.core.gradient_causes import gradient_cause
    from attnlab.core.inputs import to_float64

    args = to_float64(base_args(ctx, base_case))
    stored = ctx.reference_gradients(base_case, tuple(wrt), args)
    if stored is None:
        raise NotRun("law_gradient_no_reference", case=base_case)
    cotangent, ref_grads = stored
    _, grads = ctx.vjp(args, wrt=tuple(wrt), cotangent=cotangent)
    for name in wrt:
        if grads[name] is None:  # the cause is visible: say it, instead of the exercise's generic hint
            raise CheckFailure("law_gradient_unreached", name=name).with_hint(Message("hint_gradient_unreached"))
        mismatch = compare(grads[name], ref_grads[name], tolerance_for(ctx.exercise.tolerance, grads[name].dtype))
        if mismatch is not None:  # with the likely cause where the gradient's shape says one
            what, cause = Message("law_gradient", {"name": name}), gradient_cause(grads[name], ref_grads[name], name)
            raise (CheckFailure("law_gradient_cause", what=what, detail=mismatch, cause=cause) if cause else
                   CheckFailure("law_detail", what=what, detail=mismatch))
