"""gpt2_causal_self_attention: its picture (the fused c_attn picks identity values) and an example."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.pictures import F64, HEADS, HEADS_I, SEQ, Picture, eye, heads
from attnlab.core.pictures import randn as picture_randn


def _picture(call: Callable) -> np.ndarray:
    n_embd = HEADS * SEQ
    pick = torch.cat([eye(SEQ), torch.zeros(SEQ, n_embd - SEQ, dtype=F64)], dim=1)  # (SEQ, n_embd)
    c_attn = torch.cat([picture_randn(13, n_embd, n_embd), picture_randn(14, n_embd, n_embd), pick.repeat(HEADS, 1)])
    zeros = torch.zeros(3 * n_embd, dtype=F64)
    return heads(call(n_embd=n_embd, n_head=HEADS, c_attn_weight=c_attn, c_attn_bias=zeros,
                      c_proj_weight=eye(n_embd), c_proj_bias=zeros[:n_embd], in_features=pick), HEADS)


PICTURE = Picture(_picture, "weights", HEADS_I)


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {"n_embd": 8, "n_head": 2, "c_attn_weight": randn(g, 24, 8, dtype=dtype),
              "c_attn_bias": randn(g, 24, dtype=dtype), "c_proj_weight": randn(g, 8, 8, dtype=dtype),
              "c_proj_bias": randn(g, 8, dtype=dtype), "in_features": randn(g, *lead, 5, 8, dtype=dtype)}
    return Example(kwargs, ("in_features",), 8, causal=True)
