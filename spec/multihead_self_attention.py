"""multihead_self_attention: its picture (one weight matrix per head) and an example."""

import torch

from attnlab.core.examples import Example, multi_head, randn
from attnlab.core.pictures import HEADS_I, Picture, split_heads

PICTURE = Picture(split_heads, "weights", HEADS_I)


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = multi_head(g, lead, dtype)
    kwargs["o_proj_bias"] = randn(g, 8, dtype=dtype)
    return Example(kwargs, ("in_features",), 8, causal=True)
