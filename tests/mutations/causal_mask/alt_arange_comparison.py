"""Builds the mask from positions: key j is allowed for query i when j <= i (broadcast comparison)."""

import torch


def run_causal_mask(seq_len, device=None):
    positions = torch.arange(seq_len, device=device)
    return positions[None, :] <= positions[:, None]  # (query, key)
