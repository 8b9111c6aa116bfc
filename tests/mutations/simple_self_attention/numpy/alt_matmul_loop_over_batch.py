"""One (seq, d_in) matrix at a time with np.matmul: the leading axes are flattened with reshape(-1, seq, d_in),
each sequence is attended in a Python loop in float64 (as many NumPy courses compute, for safety) and the
results are reshaped back and cast to the input's dtype. Correct: every sequence is attended on its own, exactly
as the batched matmul does."""

import numpy as np


def run_simple_self_attention(inputs):
    seq, d_in = inputs.shape[-2:]
    flat = inputs.reshape(-1, seq, d_in).astype(np.float64)  # (batch, seq, d_in), a float64 copy
    out = np.empty_like(flat)
    for b in range(flat.shape[0]):
        x = flat[b]  # (seq, d_in): a 2-D matrix, so .T is the transpose
        scores = np.matmul(x, x.T)
        weights = np.exp(scores - scores.max(axis=1, keepdims=True))
        weights = weights / weights.sum(axis=1, keepdims=True)
        out[b] = np.matmul(weights, x)
    return out.reshape(inputs.shape).astype(inputs.dtype)
