"""multihead_self_attention_with_rope: its picture (one weight matrix per head) and an example."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, multi_head
from attnlab.core.pictures import HEADS_I, SEQ, Picture, split_heads


def _picture(call: Callable) -> np.ndarray:
    return split_heads(call, max_seq_len=64, theta=10000.0, token_positions=torch.arange(SEQ))


PICTURE = Picture(_picture, "weights", HEADS_I)


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    kwargs = multi_head(g, lead, dtype)
    kwargs.update(max_seq_len=16, theta=10000.0, token_positions=torch.arange(5) * 2)
    return Example(kwargs, ("in_features",), 8, causal=True)
