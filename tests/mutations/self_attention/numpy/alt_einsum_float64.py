"""Every product with np.einsum subscripts ("...si,oi->...so" is x Wᵀ without a transpose), computed in
float64 (np.einsum does not take ml_dtypes.bfloat16) and cast back to the input's dtype at the end."""

import numpy as np


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features, q_proj_bias=None,
                       k_proj_bias=None, v_proj_bias=None):
    x = in_features.astype(np.float64)

    def project(weight, bias):
        out = np.einsum("...si,oi->...so", x, weight.astype(np.float64))
        return out if bias is None else out + bias.astype(np.float64)

    q = project(q_proj_weight, q_proj_bias)
    k = project(k_proj_weight, k_proj_bias)
    v = project(v_proj_weight, v_proj_bias)
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(d_out)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return np.einsum("...qk,...kd->...qd", weights, v).astype(in_features.dtype)
