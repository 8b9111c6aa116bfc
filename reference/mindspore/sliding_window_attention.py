"""Sliding-window attention in MindSpore (Longformer's local attention made causal; Mistral 7B, Gemma 2's local
layers).

Causal attention lets token i look at all i + 1 tokens before it, so its cost grows with the square of the
length. A sliding window keeps only the last `window` of them: query i attends to keys j with
i − window < j ≤ i, which is `window` keys (fewer at the start of the sequence). The allowed (query, key)
pairs form a band below the diagonal, `window` wide. Information still travels further than one window:
after L layers a token has seen about L · window tokens back. window ≥ seq_len is plain causal attention;
window = 1 lets each token see only itself.
"""

import mindspore
from jaxtyping import Bool, Float
from mindspore import nn, ops


# BEGIN SOLUTION
def _sliding_window_mask(seq_len: int, window: int) -> Bool[mindspore.Tensor, "seq seq"]:
    """(seq, seq) bool: True where key j is one of query i's last `window` tokens, i − window < j ≤ i."""
    query = ops.arange(seq_len)[:, None]  # (seq, 1)
    key = ops.arange(seq_len)[None, :]  # (1, seq)
    return (key <= query) & (key > query - window)  # (seq, seq): causal, and at most `window` back
# END SOLUTION


def run_sliding_window_attention(
    Q: Float[mindspore.Tensor, "... seq d_k"],
    K: Float[mindspore.Tensor, "... seq d_k"],
    V: Float[mindspore.Tensor, "... seq d_v"],
    window: int,
) -> Float[mindspore.Tensor, "... seq d_v"]:
    """Causal attention where query i sees only the keys j with i − window < j ≤ i.

    softmax(Q Kᵀ / √d_k) V, with the scores of every other key set to -inf before the softmax. Queries and
    keys are the same tokens (self-attention), so they have the same length.

    Args:
        Q: queries, shape (..., seq, d_k).
        K: keys, shape (..., seq, d_k).
        V: values, shape (..., seq, d_v); d_v may differ from d_k.
        window: how many keys each query sees, counting itself; window >= 1. window >= seq is causal
            attention, window = 1 returns V.

    Returns:
        Shape (..., seq, d_v), dtype of Q.

    中文：滑动窗口注意力：因果注意力，但查询 i 只关注满足 i − window < j ≤ i 的键 j（含自身在内共 window 个）。
    """
    # BEGIN SOLUTION
    if window < 1:
        raise ValueError(f"window must be at least 1 (the token itself), got {window}")
    allowed = _sliding_window_mask(Q.shape[-2], window)  # (seq, seq), broadcast over leading dims
    scores = ops.matmul(Q, K.swapaxes(-2, -1)) / Q.shape[-1] ** 0.5  # (..., seq, seq)
    scores = ops.masked_fill(scores, ~allowed, float("-inf"))  # keys outside the band get weight exactly 0
    weights = nn.Softmax(axis=-1)(scores)  # (..., seq, seq), at most `window` non-zero per row
    return ops.matmul(weights, V)  # (..., seq, d_v)
    # END SOLUTION
