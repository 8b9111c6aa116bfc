"""Multi-head latent attention (DeepSeek-V2's MLA) in MindSpore, in its naive form.

MLA caches one latent vector c per token; every head's key and value are projected up from it, and the
position goes into a separate rotary part: a key k_rope shared by all heads and a rotary part of each head's
query. A head's score is (q_nope·k_nope + q_rope·k_rope) / √(d_nope + d_rope). The weights are
nn.Dense-shaped (out, in): per head the query is [q_nope | q_rope], the up-projected latent [k_nope | v];
the down-projection gives [c | k_rope].
"""

import math
from typing import Optional

import mindspore
from jaxtyping import Float, Int
from mindspore import ops


def run_latent_attention(
    d_model: int,
    num_heads: int,
    d_nope: int,
    d_rope: int,
    theta: float,
    q_proj_weight: Float[mindspore.Tensor, "q_dim d_model"],
    kv_down_proj_weight: Float[mindspore.Tensor, "down_dim d_model"],
    kv_up_proj_weight: Float[mindspore.Tensor, "up_dim d_latent"],
    o_proj_weight: Float[mindspore.Tensor, "d_model v_dim"],
    in_features: Float[mindspore.Tensor, "... seq d_model"],
    token_positions: Optional[Int[mindspore.Tensor, "... seq"]] = None,
) -> Float[mindspore.Tensor, "... seq d_model"]:
    """Causal multi-head latent attention; see the exercise's description for the formulas and layouts.

    Returns:
        A new mindspore.Tensor (..., seq, d_model) of the dtype of in_features.

    中文：多头潜在注意力（朴素形式）：键、值由潜向量 c 上投影得到，q_rope 与共享的 k_rope 用 RoPE 旋转，
    分数除以 √(d_nope + d_rope)，因果掩码，最后经 W_o 输出；dtype 与 in_features 相同。
    """
    # BEGIN SOLUTION
    x = in_features
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = ops.arange(seq) if token_positions is None else token_positions

    q = _heads(ops.matmul(x, q_proj_weight.T), num_heads)  # (..., heads, seq, d_nope + d_rope)
    q_nope, q_rope = q[..., :d_nope], q[..., d_nope:]
    down = ops.matmul(x, kv_down_proj_weight.T)  # (..., seq, d_latent + d_rope)
    latent, k_rope = down[..., :d_latent], down[..., d_latent:]  # what MLA caches
    up = _heads(ops.matmul(latent, kv_up_proj_weight.T), num_heads)  # (..., heads, seq, d_nope + d_v)
    k_nope, v = up[..., :d_nope], up[..., d_nope:]

    q_rope = _rotate(q_rope, positions[..., None, :], theta)  # positions broadcast over heads
    k_rope = _rotate(k_rope, positions, theta)[..., None, :, :]  # (..., 1, seq, d_rope): shared by the heads
    scores = (ops.matmul(q_nope, k_nope.swapaxes(-2, -1)) + ops.matmul(q_rope, k_rope.swapaxes(-2, -1)))
    scores = scores / math.sqrt(d_nope + d_rope)  # (..., heads, seq, seq)
    allowed = ops.tril(ops.ones((seq, seq), mindspore.bool_))  # causal: j <= i
    scores = ops.masked_fill(scores, ~allowed, float("-inf"))
    weights = ops.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    out = ops.matmul(weights, v).swapaxes(-3, -2)  # (..., seq, heads, d_v)
    out = out.reshape(*out.shape[:-2], num_heads * d_v)  # (..., seq, heads · d_v)
    return ops.matmul(out, o_proj_weight.T)  # (..., seq, d_model)
    # END SOLUTION


# BEGIN SOLUTION
def _heads(x: mindspore.Tensor, num_heads: int) -> mindspore.Tensor:
    """(..., seq, heads · size) -> (..., heads, seq, size), head h's columns together."""
    return x.reshape(*x.shape[:-1], num_heads, -1).swapaxes(-3, -2)


def _rotate(x: mindspore.Tensor, positions: mindspore.Tensor, theta: float) -> mindspore.Tensor:
    """RoPE on interleaved pairs (x[2i], x[2i+1]) by p·θ^(−2i/d): x (..., seq, d), positions (..., seq)."""
    d = x.shape[-1]
    frequencies = ops.pow(theta, -ops.arange(0, d, 2, dtype=x.dtype) / d)  # (d/2,)
    angles = positions.astype(x.dtype)[..., None] * frequencies  # (..., seq, d/2)
    cos, sin = ops.cos(angles), ops.sin(angles)
    even, odd = x[..., 0::2], x[..., 1::2]
    rotated = ops.stack((even * cos - odd * sin, even * sin + odd * cos), axis=-1)  # (..., seq, d/2, 2)
    return rotated.reshape(*rotated.shape[:-2], d)
# END SOLUTION
