"""Wrong RoPEs: the two pairing conventions mixed up, positions or θ ignored, angle formula slips."""

import torch

from reference.misconceptions._rotary import rotary


def rotate_half(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    """Pairs x[i] with x[i + d_k/2] (GPT-NeoX / Llama-HF layout) instead of x[2i] with x[2i+1]."""
    return rotary(in_query_or_key, token_positions, theta, d_k, half_split=True)


def ignores_positions(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    """Uses torch.arange(seq) as the positions instead of token_positions."""
    seq = in_query_or_key.shape[-2]
    return rotary(in_query_or_key, torch.arange(seq, device=in_query_or_key.device), theta, d_k)


def theta_hardcoded(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    return rotary(in_query_or_key, token_positions, 10000.0, d_k)


def negative_angle(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    """Rotates by -angle: out[2i] = x[2i]·cos + x[2i+1]·sin, out[2i+1] = -x[2i]·sin + x[2i+1]·cos."""
    return rotary(in_query_or_key, token_positions, theta, d_k, sign=-1.0)


def exponent_without_2(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    """Frequencies theta^(-i/d_k) for i = 0 .. d_k/2 - 1, i.e. the 2 of -2i/d_k forgotten."""
    return rotary(in_query_or_key, token_positions, theta, d_k, exponent_step=1)


def cos_sin_concatenated(d_k, theta, max_seq_len, in_query_or_key, token_positions):
    """cos/sin tables built as cat([c, c]) (rotate-half layout) but applied to interleaved pairs."""
    return rotary(in_query_or_key, token_positions, theta, d_k, cat_layout=True)
