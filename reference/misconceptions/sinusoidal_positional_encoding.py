"""sinusoidal_positional_encoding: known mistakes, one function per misconception id listed in
spec/sinusoidal_positional_encoding.yaml, taking run_sinusoidal_positional_encoding's arguments. Diagnosis runs
them on a failing case's inputs and names the one whose output the student's equals. Angles in float64, as
the reference computes them, so each differs from it by its mistake alone.
"""

import torch

F64 = torch.float64


def _angles(positions, frequencies):
    return positions.to(F64)[..., None] * frequencies  # (*batch, len(frequencies))


def _pair_frequencies(d_model, base, device):
    return base ** (-torch.arange(0, d_model, 2, dtype=F64, device=device) / d_model)  # ω_i = base^(−2i/d)


def _interleave(even, odd, d_model):
    """Columns even[0], odd[0], even[1], odd[1], … cut to d_model, as float32."""
    return torch.stack([even, odd], dim=-1).flatten(-2)[..., :d_model].float()


def sin_cos_swapped(positions, d_model, base=10000.0):
    """cos in the even columns and sin in the odd ones."""
    angles = _angles(positions, _pair_frequencies(d_model, base, positions.device))
    return _interleave(angles.cos(), angles.sin(), d_model)


def halves_concatenated(positions, d_model, base=10000.0):
    """torch.cat([sin, cos], -1): all sines in the first half, all cosines in the second (tensor2tensor's layout)."""
    angles = _angles(positions, _pair_frequencies(d_model, base, positions.device))
    return torch.cat([angles.sin(), angles.cos()], dim=-1)[..., :d_model].float()


def exponent_without_2(positions, d_model, base=10000.0):
    """ω_i = base^(−i/d_model): torch.arange(d_model // 2) / d_model, a ladder that stops at 1/√base."""
    pairs = (d_model + 1) // 2
    angles = _angles(positions, base ** (-torch.arange(pairs, dtype=F64, device=positions.device) / d_model))
    return _interleave(angles.sin(), angles.cos(), d_model)


def column_exponent(positions, d_model, base=10000.0):
    """Every column j uses its own exponent j/d_model, so a cosine column 2i+1 gets (2i+1)/d_model."""
    columns = torch.arange(d_model, dtype=F64, device=positions.device)
    angles = _angles(positions, base ** (-columns / d_model))  # (*batch, d_model)
    return torch.where(columns % 2 == 0, angles.sin(), angles.cos()).float()


def base_hardcoded(positions, d_model, base=10000.0):
    """base = 10000 whatever the argument says."""
    angles = _angles(positions, _pair_frequencies(d_model, 10000.0, positions.device))
    return _interleave(angles.sin(), angles.cos(), d_model)


def ignores_positions(positions, d_model, base=10000.0):
    """Positions 0, 1, …, n−1 along the last dim (torch.arange(seq_len)), not the values given."""
    index = torch.arange(positions.shape[-1], device=positions.device).expand(positions.shape) if positions.ndim \
        else torch.zeros_like(positions)
    angles = _angles(index, _pair_frequencies(d_model, base, positions.device))
    return _interleave(angles.sin(), angles.cos(), d_model)


def positive_exponent(positions, d_model, base=10000.0):
    """p · base^(+2i/d_model): multiplied by the divisor instead of divided by it."""
    angles = _angles(positions, 1.0 / _pair_frequencies(d_model, base, positions.device))
    return _interleave(angles.sin(), angles.cos(), d_model)
