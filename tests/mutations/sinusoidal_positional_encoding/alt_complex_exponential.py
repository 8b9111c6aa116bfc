"""e^{i·p·ω} = cos + i·sin: view_as_real gives (cos, sin) per pair, flipped to (sin, cos)."""

import torch


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    omega = base ** (-torch.arange(0, d_model, 2, dtype=torch.float64) / d_model)
    angles = positions.double().unsqueeze(-1) * omega
    unit = torch.polar(torch.ones_like(angles), angles)  # cos + i sin
    pairs = torch.view_as_real(unit).flip(-1)  # (..., pairs, 2): (sin, cos)
    return pairs.reshape(*positions.shape, -1)[..., :d_model].float()
