"""Rotary position embedding (RoPE) in JAX, and multi-head self-attention that uses it (seed 004).

RoPE encodes a token's position by rotating its query and key vectors: the pair (x[2i], x[2i+1]) is
rotated by the angle p * theta^(-2i/d_k), where p is the token's position. The dot product of a rotated
query and a rotated key then depends only on the difference of their positions. Values are not rotated.
"""

from typing import Optional

import jax
import jax.numpy as jnp
from jaxtyping import Float, Int

from .attention import run_causal_mask, run_scaled_dot_product_attention

# BEGIN SOLUTION
from .multihead import _merge_heads, _split_heads

# END SOLUTION


def run_rope(
    d_k: int,
    theta: float,
    max_seq_len: int,
    in_query_or_key: Float[jax.Array, "... seq d_k"],
    token_positions: Int[jax.Array, "... seq"],
) -> Float[jax.Array, "... seq d_k"]:
    """Rotate interleaved pairs of a query or key array by position-dependent angles (seed 004).

    For i = 0 .. d_k/2 - 1 and position p, the angle is a = p * theta^(-2i/d_k), and
        out[2i]   = x[2i] cos(a) - x[2i+1] sin(a)
        out[2i+1] = x[2i] sin(a) + x[2i+1] cos(a).
    Angles and the rotation are computed in at least float32 (float64 stays float64); the result is
    cast back to the input's dtype.

    Args:
        d_k: size of the last axis of `in_query_or_key`; even.
        theta: RoPE base, e.g. 10000.0.
        max_seq_len: largest position + 1 that callers may use. A module would precompute cos/sin tables
            of this length; this function computes the angles directly, so it does not use it and does
            not check positions against it.
        in_query_or_key: queries or keys, shape (..., seq, d_k).
        token_positions: integer position of every token (int32, or int64 with float64 inputs), shape
            (..., seq); its leading axes broadcast against those of `in_query_or_key` (e.g. shape (seq,)
            for all batch entries).

    Returns:
        The rotated array, shape (..., seq, d_k), dtype of `in_query_or_key`.

    中文：旋转位置编码：把相邻两维 (x[2i], x[2i+1]) 按角度 p·θ^(-2i/d_k) 旋转，p 为词元位置。
    """
    # BEGIN SOLUTION
    compute_dtype = jnp.promote_types(in_query_or_key.dtype, jnp.float32)
    even_dims = jnp.arange(0, d_k, 2, dtype=compute_dtype)  # (d_k/2,): 2i
    frequencies = theta ** (-even_dims / d_k)  # (d_k/2,): theta^(-2i/d_k)
    angles = token_positions.astype(compute_dtype)[..., None] * frequencies  # (..., seq, d_k/2)
    cos, sin = jnp.cos(angles), jnp.sin(angles)

    x = in_query_or_key.astype(compute_dtype)
    x_even = x[..., 0::2]  # (..., seq, d_k/2): x[2i]
    x_odd = x[..., 1::2]  # (..., seq, d_k/2): x[2i+1]
    rotated_even = x_even * cos - x_odd * sin
    rotated_odd = x_even * sin + x_odd * cos
    # Interleave again: stack gives (..., seq, d_k/2, 2), merging the last two axes gives
    # rotated_even[0], rotated_odd[0], rotated_even[1], ... in the original order.
    rotated = jnp.stack((rotated_even, rotated_odd), axis=-1)  # (..., seq, d_k/2, 2)
    rotated = rotated.reshape(*rotated.shape[:-2], d_k)  # (..., seq, d_k)
    return rotated.astype(in_query_or_key.dtype)
    # END SOLUTION


def run_multihead_self_attention_with_rope(
    d_model: int,
    num_heads: int,
    max_seq_len: int,
    theta: float,
    q_proj_weight: Float[jax.Array, "d_model d_in"],
    k_proj_weight: Float[jax.Array, "d_model d_in"],
    v_proj_weight: Float[jax.Array, "d_model d_in"],
    o_proj_weight: Float[jax.Array, "d_model d_model"],
    in_features: Float[jax.Array, "... seq d_in"],
    token_positions: Optional[Int[jax.Array, "... seq"]] = None,
) -> Float[jax.Array, "... seq d_model"]:
    """Causal multi-head self-attention with RoPE applied to queries and keys (seed 004).

    As run_multihead_self_attention without output bias, except that after splitting into heads
    (d_k = d_model / num_heads) every head's queries and keys are rotated with run_rope, using the same
    positions for all heads. Values are not rotated.

    Args:
        d_model: total size of queries, keys, values and output; divisible by num_heads.
        num_heads: number of heads.
        max_seq_len: largest position + 1 allowed, passed on to run_rope.
        theta: RoPE base, passed on to run_rope.
        q_proj_weight: query projection, shape (d_model, d_in), (out, in) layout.
        k_proj_weight: key projection, shape (d_model, d_in).
        v_proj_weight: value projection, shape (d_model, d_in).
        o_proj_weight: output projection, shape (d_model, d_model).
        in_features: input embeddings, shape (..., seq, d_in).
        token_positions: optional integer positions, shape (..., seq), broadcastable against the
            batch axes of `in_features`; default 0, 1, ..., seq - 1.

    Returns:
        Shape (..., seq, d_model), dtype of `in_features`.

    中文：带旋转位置编码的多头因果自注意力：拆头之后对每个头的 q、k 做 RoPE，v 不旋转。
    """
    # BEGIN SOLUTION
    seq_len = in_features.shape[-2]
    d_k = d_model // num_heads
    if token_positions is None:
        token_positions = jnp.arange(seq_len)  # (seq,)
    head_positions = token_positions[..., None, :]  # (..., 1, seq): the same positions for every head

    queries = _split_heads(in_features @ q_proj_weight.T, num_heads)  # (..., heads, seq, d_k)
    keys = _split_heads(in_features @ k_proj_weight.T, num_heads)  # (..., heads, seq, d_k)
    values = _split_heads(in_features @ v_proj_weight.T, num_heads)  # (..., heads, seq, d_k)
    queries = run_rope(d_k, theta, max_seq_len, queries, head_positions)
    keys = run_rope(d_k, theta, max_seq_len, keys, head_positions)

    mask = run_causal_mask(seq_len)  # (seq, seq)
    heads = run_scaled_dot_product_attention(Q=queries, K=keys, V=values, mask=mask)  # (..., heads, seq, d_k)
    return _merge_heads(heads) @ o_proj_weight.T  # (..., seq, d_model)
    # END SOLUTION
