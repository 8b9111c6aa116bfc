"""Sliding-window attention in JAX (Longformer's local attention made causal; Mistral 7B, Gemma 2's local
layers).

Causal attention lets token i look at all i + 1 tokens before it, so its cost grows with the square of the
length. A sliding window keeps only the last `window` of them: query i attends to keys j with
i − window < j ≤ i, which is `window` keys (fewer at the start of the sequence). The allowed (query, key)
pairs form a band below the diagonal, `window` wide. Information still travels further than one window:
after L layers a token has seen about L · window tokens back. window ≥ seq_len is plain causal attention;
window = 1 lets each token see only itself.
"""

import math

import jax
import jax.numpy as jnp
from jaxtyping import Bool, Float


# BEGIN SOLUTION
def _sliding_window_mask(seq_len: int, window: int) -> Bool[jax.Array, "seq seq"]:
    """(seq, seq) bool: True where key j is one of query i's last `window` tokens, i − window < j ≤ i."""
    query = jnp.arange(seq_len)[:, None]  # (seq, 1)
    key = jnp.arange(seq_len)[None, :]  # (1, seq)
    return (key <= query) & (key > query - window)  # (seq, seq): causal, and at most `window` back
# END SOLUTION


def run_sliding_window_attention(
    Q: Float[jax.Array, "... seq d_k"],
    K: Float[jax.Array, "... seq d_k"],
    V: Float[jax.Array, "... seq d_v"],
    window: int,
) -> Float[jax.Array, "... seq d_v"]:
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
    allowed = _sliding_window_mask(Q.shape[-2], window)  # (seq, seq), broadcast over leading axes
    scores = Q @ jnp.swapaxes(K, -2, -1) / math.sqrt(Q.shape[-1])  # (..., seq, seq)
    scores = jnp.where(allowed, scores, -jnp.inf)  # keys outside the band get weight exactly 0
    weights = jax.nn.softmax(scores, axis=-1)  # (..., seq, seq), at most `window` non-zero per row
    return weights @ V  # (..., seq, d_v)
    # END SOLUTION
