"""Multi-head latent attention (DeepSeek-V2's MLA) in NumPy, in its naive form.

MLA caches one latent vector c per token; every head's key and value are projected up from it, and the
position goes into a separate rotary part: a key k_rope shared by all heads and a rotary part of each head's
query. A head's score is (q_nope·k_nope + q_rope·k_rope) / √(d_nope + d_rope). The weights are
nn.Linear-shaped (out, in): per head the query is [q_nope | q_rope], the up-projected latent [k_nope | v];
the down-projection gives [c | k_rope].
"""

import math
from typing import Optional

import numpy as np
from jaxtyping import Float, Int


def run_latent_attention(
    d_model: int,
    num_heads: int,
    d_nope: int,
    d_rope: int,
    theta: float,
    q_proj_weight: Float[np.ndarray, "q_dim d_model"],
    kv_down_proj_weight: Float[np.ndarray, "down_dim d_model"],
    kv_up_proj_weight: Float[np.ndarray, "up_dim d_latent"],
    o_proj_weight: Float[np.ndarray, "d_model v_dim"],
    in_features: Float[np.ndarray, "... seq d_model"],
    token_positions: Optional[Int[np.ndarray, "... seq"]] = None,
) -> Float[np.ndarray, "... seq d_model"]:
    """Causal multi-head latent attention; see the exercise's description for the formulas and layouts.

    Returns:
        A new numpy.ndarray (..., seq, d_model) of the dtype of in_features (bfloat16 computed in float32).

    中文：多头潜在注意力（朴素形式）：键、值由潜向量 c 上投影得到，q_rope 与共享的 k_rope 用 RoPE 旋转，
    分数除以 √(d_nope + d_rope)，因果掩码，最后经 W_o 输出；dtype 与 in_features 相同。
    """
    # BEGIN SOLUTION
    work = np.promote_types(in_features.dtype, np.float32)  # bfloat16: compute in float32
    x = in_features.astype(work)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = np.arange(seq) if token_positions is None else token_positions

    q = _heads(x @ q_proj_weight.astype(work).T, num_heads)  # (..., heads, seq, d_nope + d_rope)
    q_nope, q_rope = q[..., :d_nope], q[..., d_nope:]
    down = x @ kv_down_proj_weight.astype(work).T  # (..., seq, d_latent + d_rope)
    latent, k_rope = down[..., :d_latent], down[..., d_latent:]  # what MLA caches
    up = _heads(latent @ kv_up_proj_weight.astype(work).T, num_heads)  # (..., heads, seq, d_nope + d_v)
    k_nope, v = up[..., :d_nope], up[..., d_nope:]

    q_rope = _rotate(q_rope, positions[..., None, :], theta)  # positions broadcast over heads
    k_rope = _rotate(k_rope, positions, theta)[..., None, :, :]  # (..., 1, seq, d_rope): shared by the heads
    scores = (q_nope @ k_nope.swapaxes(-2, -1) + q_rope @ k_rope.swapaxes(-2, -1)) / math.sqrt(d_nope + d_rope)
    scores = np.where(np.tril(np.ones((seq, seq), dtype=bool)), scores, -np.inf)  # causal: j <= i
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)  # (..., heads, seq, seq)
    out = (weights @ v).swapaxes(-3, -2)  # (..., seq, heads, d_v)
    out = out.reshape(*out.shape[:-2], num_heads * d_v)  # (..., seq, heads · d_v)
    return (out @ o_proj_weight.astype(work).T).astype(in_features.dtype)  # (..., seq, d_model)
    # END SOLUTION


# BEGIN SOLUTION
def _heads(x: np.ndarray, num_heads: int) -> np.ndarray:
    """(..., seq, heads · size) -> (..., heads, seq, size), head h's columns together."""
    return x.reshape(*x.shape[:-1], num_heads, -1).swapaxes(-3, -2)


def _rotate(x: np.ndarray, positions: np.ndarray, theta: float) -> np.ndarray:
    """RoPE on interleaved pairs (x[2i], x[2i+1]) by p·θ^(−2i/d): x (..., seq, d), positions (..., seq)."""
    d = x.shape[-1]
    frequencies = (theta ** (-np.arange(0, d, 2, dtype=x.dtype) / d)).astype(x.dtype)  # (d/2,)
    angles = positions.astype(x.dtype)[..., None] * frequencies  # (..., seq, d/2)
    cos, sin = np.cos(angles), np.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = np.stack((even * cos - odd * sin, even * sin + odd * cos), axis=-1)  # (..., seq, d/2, 2)
    return rotated.reshape(*rotated.shape[:-2], d)
# END SOLUTION
