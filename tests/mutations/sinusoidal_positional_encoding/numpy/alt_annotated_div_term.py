"""The Annotated Transformer's recipe in NumPy: div_term = exp(2i · (−ln(base) / d_model)), a zero array filled
by slice assignment, pe[..., 0::2] = sin(p · div_term) and pe[..., 1::2] = cos(p · div_term) (one column fewer
of cosines when d_model is odd). NumPy computes the angles in float64; the array is float32 from the start."""

import math

import numpy as np


def run_sinusoidal_positional_encoding(positions, d_model, base=10000.0):
    div_term = np.exp(np.arange(0, d_model, 2) * -(math.log(base) / d_model))  # (ceil(d_model/2),)
    angles = positions[..., None] * div_term  # (*batch, ceil(d_model/2)), float64
    pe = np.zeros((*positions.shape, d_model), dtype=np.float32)
    pe[..., 0::2] = np.sin(angles)
    pe[..., 1::2] = np.cos(angles[..., : d_model // 2])
    return pe
