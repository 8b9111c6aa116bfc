"""An nn.Module written after torch.nn.Dropout: `if not self.training or self.p == 0: return x`, the input
itself in eval mode AND when nothing can be dropped (p = 0), as torch's own dropout returns it; otherwise a
float keep mask from torch.rand with the given generator, multiplied in and divided by 1 - p."""

import torch
from torch import nn


class Dropout(nn.Module):
    def __init__(self, p: float, generator: torch.Generator | None = None):
        super().__init__()
        self.p, self.generator = p, generator

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.training or self.p == 0:
            return x
        if self.p == 1:
            return torch.zeros_like(x)
        noise = torch.rand(x.shape, generator=self.generator, dtype=x.dtype, device=x.device)
        return x * (noise >= self.p).to(x.dtype) / (1 - self.p)


def run_dropout(in_features, p, training=True, generator=None):
    layer = Dropout(p, generator)
    layer.train(training)
    return layer(in_features)
