"""Wrong causal masks (seed 000 uses tril == allowed; seeds 001/002 use triu(diagonal=1) == masked)."""

import torch


def upper_triangle(seq_len, device=None):
    """torch.triu instead of torch.tril: each query may see itself and the future."""
    return torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device))


def inverted_convention(seq_len, device=None):
    """Seeds 001/002's triu(ones, diagonal=1), True where a key is MASKED, returned as if True = allowed."""
    return torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=1)


def diagonal_excluded(seq_len, device=None):
    """Strictly lower triangle: a query may not attend to its own token."""
    return torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool, device=device), diagonal=-1)
