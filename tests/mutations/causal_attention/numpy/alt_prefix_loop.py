"""No mask at all: query i attends only to the prefix keys[..., :i + 1, :] in a Python loop over positions,
which is what the causal mask means. Float64 inside, cast back at the end."""

import numpy as np


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                         k_proj_bias=None, v_proj_bias=None):
    x = in_features.astype(np.float64)

    def project(weight, bias):
        out = np.matmul(x, weight.astype(np.float64).T)
        return out if bias is None else out + bias

    q = project(q_proj_weight, q_proj_bias)
    k = project(k_proj_weight, k_proj_bias)
    v = project(v_proj_weight, v_proj_bias)
    out = np.empty(q.shape[:-1] + (d_out,))
    for i in range(q.shape[-2]):
        scores = np.einsum("...d,...kd->...k", q[..., i, :], k[..., :i + 1, :]) / np.sqrt(d_out)
        weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
        weights /= weights.sum(axis=-1, keepdims=True)
        out[..., i, :] = np.einsum("...k,...kd->...d", weights, v[..., :i + 1, :])
    return out.astype(in_features.dtype)
