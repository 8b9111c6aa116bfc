"""Example calls with any leading dims: what an exercise's `example(generator, lead, dtype)` returns.

The reference's own tests (tests/test_reference_basics.py) run every exercise's example through generic
checks: output shape and dtype, inputs untouched, leading dims as independent batches, bfloat16 close to
float64, non-contiguous inputs, and causality where the exercise is causal. The builders below make the
keyword arguments that several exercises share (projections of one head, of several heads).
"""

from dataclasses import dataclass
from typing import Any

import torch


@dataclass(frozen=True)
class Example:
    kwargs: dict[str, Any]
    batched: tuple[str, ...]  # arguments that carry the leading dims; the first also carries the sequence
    last_dim: int  # size of the output's last dim (its second to last is the sequence)
    causal: bool = False  # output row t depends on tokens 0..t of the first batched argument only
    random: bool = False  # draws random numbers (from a `generator` argument)


def randn(generator: torch.Generator, *shape: int, dtype: torch.dtype) -> torch.Tensor:
    return torch.randn(*shape, generator=generator, dtype=torch.float64).to(dtype)


def single_head(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype, *, seq: int = 5, d_in: int = 6,
                d_out: int = 4) -> dict[str, Any]:
    """Arguments of single-head attention with nn.Linear-shaped projections and biases."""
    kwargs: dict[str, Any] = {"d_in": d_in, "d_out": d_out, "in_features": randn(g, *lead, seq, d_in, dtype=dtype)}
    for name in "qkv":
        kwargs[f"{name}_proj_weight"] = randn(g, d_out, d_in, dtype=dtype)
        kwargs[f"{name}_proj_bias"] = randn(g, d_out, dtype=dtype)
    return kwargs


def multi_head(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype, *, seq: int = 5, d_in: int = 6,
               d_model: int = 8, heads: int = 2) -> dict[str, Any]:
    """Arguments of multi-head attention: q/k/v projections (d_model, d_in), the output projection."""
    kwargs: dict[str, Any] = {f"{name}_proj_weight": randn(g, d_model, d_in, dtype=dtype) for name in "qkv"}
    kwargs.update(d_model=d_model, num_heads=heads)
    kwargs["o_proj_weight"] = randn(g, d_model, d_model, dtype=dtype)
    kwargs["in_features"] = randn(g, *lead, seq, d_in, dtype=dtype)
    return kwargs
