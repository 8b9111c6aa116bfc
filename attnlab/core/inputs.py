"""Turn a case's input recipe (from its spec) into the keyword arguments of a run_* call.

Recipes are deterministic: the same recipe and seed give the same tensors on every machine (CPU
generator). Layouts ("transposed", "strided") keep the values and change only the memory layout, so
fixtures store values and the layout is applied when the case is loaded.
"""

import hashlib
from typing import Any

import torch

from attnlab.core.spec import ArgRecipe, CaseSpec

DTYPES = {"float32": torch.float32, "float64": torch.float64, "bfloat16": torch.bfloat16,
          "float16": torch.float16, "int64": torch.int64, "bool": torch.bool}
LAYOUTS = ("contiguous", "transposed", "strided")


def apply_layout(t: torch.Tensor, layout: str) -> torch.Tensor:
    """Same values, different strides: a transposed view of a copy, or every other element of a bigger one."""
    if layout == "contiguous" or t.dim() == 0:
        return t.contiguous()
    if layout == "transposed":
        if t.dim() < 2:
            raise ValueError("layout 'transposed' needs at least 2 dims")
        return t.mT.contiguous().mT
    if layout == "strided":
        wide = torch.zeros(*t.shape[:-1], 2 * t.shape[-1], dtype=t.dtype, device=t.device)
        wide[..., ::2] = t
        return wide[..., ::2]
    raise ValueError(f"unknown layout {layout!r}; expected one of {LAYOUTS}")


def derived_seed(base: int, *parts: str) -> int:
    """A stable 63-bit seed from a base seed and names (used for fresh hidden draws)."""
    digest = hashlib.sha256(":".join([str(base), *parts]).encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _generator(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _random_tensor(r: ArgRecipe, seed: int) -> torch.Tensor:
    g = _generator(seed)
    if r.dist == "normal":
        t = torch.randn(r.shape, generator=g, dtype=torch.float64)
    elif r.dist == "uniform":
        t = torch.rand(r.shape, generator=g, dtype=torch.float64) * 2 - 1
    else:
        raise ValueError(f"unknown dist {r.dist!r}")
    t = t * torch.tensor(r.scale, dtype=torch.float64) + r.offset
    return t.to(DTYPES[r.dtype])


def _positions(r: ArgRecipe, seed: int) -> torch.Tensor:
    """Integer token positions (..., seq): arange, offset arange, shuffled, or random per row."""
    *lead, seq = r.shape
    g = _generator(seed)
    base = torch.arange(seq, dtype=torch.int64) + r.offset
    if r.order == "arange":
        pos = base.expand(*lead, seq)
    elif r.order == "shuffled":
        pos = base[torch.randperm(seq, generator=g)].expand(*lead, seq)
    elif r.order == "random":  # independent positions per row, below max_position
        pos = torch.randint(0, r.max_position, (*lead, seq), generator=g)
    else:
        raise ValueError(f"unknown positions order {r.order!r}")
    return pos.clone()


def _padding(r: ArgRecipe, seed: int) -> torch.Tensor:
    """A (..., keys) padding mask: each row's real tokens first, then padding (False). Every row but the last
    has from half of the keys (at least 1, so attention still has something to weigh) to keys - 1 real
    tokens; the last row, the batch's longest sequence, has no padding."""
    *lead, k = r.shape
    lengths = torch.randint(max(1, k // 2), max(k, 2), (*lead, 1), generator=_generator(seed))  # (..., 1)
    if lengths.numel() > 1:
        lengths.view(-1)[-1] = k
    allowed = torch.arange(k) < lengths  # (..., keys)
    return allowed if r.dtype == "bool" else allowed.to(DTYPES[r.dtype])


def _mask(r: ArgRecipe, seed: int) -> torch.Tensor:
    """A (..., queries, keys) mask with at least one allowed key per query (the diagonal, or key 0), or a
    (..., keys) padding mask."""
    if r.pattern == "padding":
        return _padding(r, seed)
    *lead, q, k = r.shape
    if r.pattern == "causal":
        allowed = torch.ones(q, k, dtype=torch.bool).tril(diagonal=k - q).expand(*lead, q, k).clone()
    elif r.pattern == "random":
        allowed = torch.rand(r.shape, generator=_generator(seed)) < 0.6
    else:
        raise ValueError(f"unknown mask pattern {r.pattern!r}")
    allowed[..., :, 0] = True  # never a query with no allowed key
    return allowed if r.dtype == "bool" else allowed.to(DTYPES[r.dtype])


def build_arg(r: ArgRecipe, *, seed: int, fresh: bool = False) -> Any:
    """One argument. `fresh` (grading draws) also jitters literal tensors, so no input equals a fixture."""
    if r.kind == "value":
        return r.value
    if r.kind == "generator":
        return _generator(seed)
    if r.kind == "device":
        return torch.device("cpu")
    if r.kind == "randint":
        low, high = r.value
        return int(torch.randint(low, high + 1, (), generator=_generator(seed)))
    if r.kind == "derived":
        raise ValueError("a derived argument is computed from the case's other arguments: build it with build_args")
    if r.kind == "literal":
        t = torch.tensor(r.value, dtype=torch.float64)
        if fresh and r.dtype != "int64":  # integers (block tables, lengths) are structure, kept as written
            t = t + 0.1 * torch.randn(t.shape, generator=_generator(seed), dtype=torch.float64)
        t = t.to(DTYPES[r.dtype])
    elif r.kind == "positions":
        t = _positions(r, seed)
    elif r.kind == "mask":
        t = _mask(r, seed)
    else:
        t = _random_tensor(r, seed)
    return apply_layout(t, r.layout)


def build_args(case: CaseSpec, *, fresh_seed: int | None = None) -> dict[str, Any]:
    """The case's keyword arguments; with `fresh_seed`, every random recipe draws from a new seed."""
    args = {}
    for name, recipe in case.args.items():
        if recipe.kind == "derived":
            continue
        fresh = fresh_seed is not None
        seed = derived_seed(fresh_seed, case.name, name) if fresh else recipe.seed
        args[name] = build_arg(recipe, seed=seed, fresh=fresh)
    for name, recipe in case.args.items():  # then what is computed from them, in the spec's order
        if recipe.kind == "derived":
            args[name] = apply_layout(recipe.value(dict(args)).to(DTYPES[recipe.dtype]), recipe.layout)
    return {name: args[name] for name in case.args}


def to_float64(args: dict[str, Any]) -> dict[str, Any]:
    """Float tensors in float64 (expected values are computed in float64); everything else unchanged."""
    return {k: v.to(torch.float64) if isinstance(v, torch.Tensor) and v.is_floating_point() else v
            for k, v in args.items()}


def copy_args(args: dict[str, Any]) -> dict[str, Any]:
    """An independent copy with the same values, dtypes and strides (a strided or transposed input stays
    so), and generators in the same state; other values are immutable and shared."""
    out = {}
    for name, value in args.items():
        if isinstance(value, torch.Tensor):
            out[name] = torch.empty_strided(value.shape, value.stride(), dtype=value.dtype,
                                            device=value.device).copy_(value)
        elif isinstance(value, torch.Generator):
            out[name] = torch.Generator(value.device)
            out[name].set_state(value.get_state())
        else:
            out[name] = value
    return out


def raw_bytes(t: torch.Tensor) -> bytes:
    """The tensor's elements in C order as raw native-endian bytes (bfloat16, 0-dim and a lazily conjugated
    or negated view too: its values)."""
    flat = t.detach().resolve_conj().resolve_neg().to("cpu").contiguous().reshape(-1)
    if flat.numel() == 0:
        return b""
    return flat.view(torch.uint8).numpy().tobytes()


def snapshot(args: dict[str, Any]) -> dict[str, torch.Tensor]:
    """Copies of the tensor arguments, taken before a call, for `changed` after it."""
    return {k: v.detach().clone() for k, v in args.items() if isinstance(v, torch.Tensor)}


def changed(args: dict[str, Any], before: dict[str, torch.Tensor]) -> list[str]:
    """Names of tensor arguments a call modified in place: another shape, dtype or any byte (so NaN, which
    is never equal to itself, counts as unchanged, and -0.0 written over 0.0 counts as a change). The one
    test used wherever a call runs: in this process and in the grading runner."""
    return [k for k, old in before.items() if not same_bytes(args[k], old)]


_SAME_SIZE_INT = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}


def same_bytes(a: torch.Tensor, b: torch.Tensor) -> bool:
    """The same shape, dtype and bytes, element by element. Compared as integers of the element's size, one
    torch.equal where it runs (every call of a check asks this of each tensor argument); as raw_bytes where
    it cannot (complex128, a tensor with its conjugate bit set)."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    bits = _SAME_SIZE_INT.get(a.element_size())
    if bits is not None and a.device == b.device:
        try:
            return torch.equal(a.detach().view(bits), b.detach().view(bits))
        except (RuntimeError, TypeError):
            pass
    return raw_bytes(a) == raw_bytes(b)


def aliased(args: dict[str, Any], output: torch.Tensor) -> list[str]:
    """Names of tensor arguments the output is (the same first element in memory: the input returned)."""
    if not output.numel():
        return []
    return [k for k, v in args.items() if isinstance(v, torch.Tensor) and v.data_ptr() == output.data_ptr()]
