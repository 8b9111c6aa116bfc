"""simple_self_attention: its picture (weights = output · X⁻¹ for a square, invertible X) and an example."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.pictures import F64, SEQ, Picture, heads
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text


def _picture(call: Callable) -> np.ndarray:
    inputs = picture_randn(4, SEQ, SEQ, scale=0.5)
    return heads(call(inputs=inputs).to(F64) @ torch.linalg.inv(inputs))


PICTURE = Picture(_picture, "weights",
                  Text(en="weights = output · X⁻¹ (X square)", zh="权重 = 输出 · X⁻¹（X 为可逆方阵）"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    return Example({"inputs": randn(g, *lead, 5, 6, dtype=dtype)}, ("inputs",), 6)
