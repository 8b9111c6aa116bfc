"""mint's torch-like API: `mint.matmul`, `mint.transpose(K, -2, -1)`, the masked scores chosen with
`mint.where(mask == 0, -inf, scores)` (the hint's `mask == 0`, which reads a bool mask's False as 0 too), and
`mint.nn.functional.softmax`. Correct: every disallowed score becomes -inf before the softmax, and the scale
is √d_k from Q's last axis."""

from mindspore import mint


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    d_k = Q.shape[-1]
    scores = mint.matmul(Q, mint.transpose(K, -2, -1)) / d_k**0.5  # (..., queries, keys)
    if mask is not None:
        scores = mint.where(mask == 0, float("-inf"), scores)
    weights = mint.nn.functional.softmax(scores, dim=-1)
    return mint.matmul(weights, V)
