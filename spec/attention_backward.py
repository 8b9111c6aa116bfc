"""attention_backward: its own laws, its picture for `attnlab viz` and an example call (see attnlab.core.exercises)."""

import torch

from attnlab.core.examples import Example, randn

MESSAGES: dict = {}  # the sentences of this exercise's own laws: {key: {"en": ..., "zh": ...}}


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    return Example({"x": randn(g, *lead, 5, 3, dtype=dtype)}, ("x",), 3)
