"""self_attention: its picture (V = identity) and an example with biases."""

import torch

from attnlab.core.examples import Example, single_head
from attnlab.core.pictures import V_IS_I, Picture, projected

PICTURE = Picture(projected, "weights", V_IS_I)


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    return Example(single_head(g, lead, dtype), ("in_features",), 4)
