# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
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
    raise NotImplementedError("exercise rope: implement run_rope")


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
    raise NotImplementedError("exercise multihead_self_attention_with_rope: implement run_multihead_self_attention_with_rope")
