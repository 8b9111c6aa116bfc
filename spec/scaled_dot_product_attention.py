"""scaled_dot_product_attention: its picture (V = identity, a random mask) and an example with d_v ≠ d_k."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.pictures import SEQ, Picture, eye, heads
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text


def _picture(call: Callable) -> np.ndarray:
    mask = torch.rand(SEQ, SEQ, generator=torch.Generator().manual_seed(3)) < 0.6
    mask[:, 0] = True  # every query may attend to at least one key
    return heads(call(Q=picture_randn(1, SEQ, 4), K=picture_randn(2, SEQ, 4), V=eye(SEQ), mask=mask))


PICTURE = Picture(_picture, "weights", Text(en="V = identity, random mask", zh="V 取单位矩阵，随机掩码"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    mask = randn(g, 5, 7, dtype=torch.float64) > -0.5
    mask[:, 0] = True  # every query may attend to at least one key
    kwargs = {"Q": randn(g, *lead, 5, 3, dtype=dtype), "K": randn(g, *lead, 7, 3, dtype=dtype),
              "V": randn(g, *lead, 7, 7, dtype=dtype), "mask": mask}  # d_v = 7 differs from d_k = 3
    return Example(kwargs, ("Q", "K", "V"), 7)
