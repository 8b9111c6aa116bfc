"""causal_mask: its picture is the mask itself."""

from collections.abc import Callable

import numpy as np

from attnlab.core.pictures import F64, SEQ, Picture, heads
from attnlab.core.spec import Text


def _picture(call: Callable) -> np.ndarray:
    return heads(call(seq_len=SEQ).to(F64))


PICTURE = Picture(_picture, "mask", Text(en="True (1) = may attend", zh="True（1）= 可以关注"))
