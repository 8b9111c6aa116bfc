"""Never looks at `training`: dropout is applied at evaluation time too, where it must be the identity."""

import torch

DIAGNOSIS = "training_ignored"


def run_dropout(in_features, p, training=True, generator=None):
    if p == 1.0:
        return torch.zeros_like(in_features)
    uniform = torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype)
    return torch.where(uniform >= p, in_features / (1.0 - p), 0.0)
