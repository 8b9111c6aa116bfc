"""Wrong dropouts whose output is reproducible: p = 0 and p = 1 need no random numbers, and a bug that
draws exactly like the reference can be replayed from the generator's initial seed."""

import torch

from reference.attention import run_dropout


def keeps_with_probability_p(in_features, p, training=True, generator=None):
    """Keeps an element where rand < p: p is taken as the probability of KEEPING it.
    At p = 0 everything is dropped; at p = 1 everything is kept and divided by 0."""
    if not training:
        return in_features.clone()
    g = None if generator is None else torch.Generator().manual_seed(generator.initial_seed())
    uniform = torch.rand(in_features.shape, generator=g, dtype=in_features.dtype, device=in_features.device)
    return torch.where(uniform < p, in_features / (1.0 - p), 0.0)


def training_ignored(in_features, p, training=True, generator=None):
    """Drops elements even when training=False (replayed from a fresh generator with the same seed)."""
    g = None if generator is None else torch.Generator().manual_seed(generator.initial_seed())
    return run_dropout(in_features, p, training=True, generator=g)
