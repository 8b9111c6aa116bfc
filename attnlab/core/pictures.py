"""Reading attention weights off a run_* function, by construction, never from its internals.

An exercise's spec/<id>.py sets PICTURE = Picture(compute, kind, caption), where compute(call) calls the
function (by keyword, through `call`) on inputs chosen so the output reveals the weights, and returns a
(heads, rows, cols) float64 array. The building blocks below are the usual tricks: V = identity makes the
output the weight matrix; identity value and output projections make a multi-head output the heads'
weight matrices side by side. attnlab.student.viz draws the arrays; attnlab.instructor.generate saves the
reference's in fixtures/_viz/ for handouts.
"""

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import torch

from attnlab.core.outcomes import CheckFailure
from attnlab.core.spec import Text

SEQ, HEADS = 8, 2
F64 = torch.float64


@dataclass(frozen=True)
class Picture:
    compute: Callable[[Callable], np.ndarray]  # call(**kwargs) -> Tensor  ->  (heads, rows, cols)
    kind: str  # "weights" (in [0, 1]) | "mask" | "scores" (signed)
    caption: Text
    axes: tuple[Text, Text] | None = None  # (columns, rows) labels; None: key and query


def randn(seed: int, *shape: int, scale: float = 1.2) -> torch.Tensor:
    return torch.randn(shape, generator=torch.Generator().manual_seed(seed), dtype=F64) * scale


def eye(n: int) -> torch.Tensor:
    return torch.eye(n, dtype=F64)


def heads(out: torch.Tensor, count: int = 1) -> np.ndarray:
    """(seq, count·seq) columns → (count, seq, seq) weight matrices (float64 numpy)."""
    out = out.detach().to("cpu", F64)
    if tuple(out.shape) != (SEQ, count * SEQ):  # the student's output: said as a failure, never raised as a bug
        raise CheckFailure("picture_shape", got=tuple(out.shape), expected=(SEQ, count * SEQ))
    return out.reshape(SEQ, count, SEQ).permute(1, 0, 2).numpy()


def projected(call: Callable) -> np.ndarray:
    """Single-head attention with projections: in_features = identity (d_in = seq), W_v = identity."""
    return heads(call(d_in=SEQ, d_out=SEQ, q_proj_weight=randn(5, SEQ, SEQ), k_proj_weight=randn(6, SEQ, SEQ),
                      v_proj_weight=eye(SEQ), in_features=eye(SEQ)))


def split_heads(call: Callable, **extra) -> np.ndarray:
    """Multi-head attention: each head's value projection picks the identity, W_o = identity."""
    d_model = HEADS * SEQ
    out = call(d_model=d_model, num_heads=HEADS, q_proj_weight=randn(9, d_model, SEQ),
               k_proj_weight=randn(10, d_model, SEQ), v_proj_weight=eye(SEQ).repeat(HEADS, 1),
               o_proj_weight=eye(d_model), in_features=eye(SEQ), **extra)
    return heads(out, HEADS)


V_IS_I = Text(en="V = identity, so the output is the weight matrix", zh="V 取单位矩阵，输出即为注意力权重矩阵")
HEADS_I = Text(en="each head's V and the output projection are identities: one weight matrix per head",
               zh="每个头的 V 与输出投影均为单位矩阵：每个头一张权重图")
