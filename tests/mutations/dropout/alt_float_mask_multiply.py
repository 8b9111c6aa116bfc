"""Multiplies by a 0/1 float mask scaled by 1/(1-p) (how nn.Dropout is usually explained), with the p = 1
case handled first so that no 0/0 appears."""

import torch


def run_dropout(in_features, p, training=True, generator=None):
    if not training:
        return in_features.clone()
    if p >= 1.0:
        return in_features * 0.0
    uniform = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype,
                         device=in_features.device)
    scale = (uniform >= p).to(in_features.dtype) / (1.0 - p)  # 0 or 1/(1-p)
    return in_features * scale
