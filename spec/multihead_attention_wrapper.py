"""multihead_attention_wrapper: its picture (one weight matrix per head) and an example."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.pictures import HEADS, HEADS_I, SEQ, Picture, eye, heads
from attnlab.core.pictures import randn as picture_randn


def _picture(call: Callable) -> np.ndarray:
    return heads(call(d_in=SEQ, d_out=SEQ, num_heads=HEADS, q_proj_weights=picture_randn(11, HEADS, SEQ, SEQ),
                      k_proj_weights=picture_randn(12, HEADS, SEQ, SEQ),
                      v_proj_weights=eye(SEQ).repeat(HEADS, 1, 1), in_features=eye(SEQ)), HEADS)


PICTURE = Picture(_picture, "weights", HEADS_I)


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = {f"{name}_proj_weights": randn(g, 2, 4, 6, dtype=dtype) for name in "qkv"}
    kwargs.update(d_in=6, d_out=4, num_heads=2, in_features=randn(g, *lead, 5, 6, dtype=dtype))
    return Example(kwargs, ("in_features",), 8, causal=True)
