# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Multi-head attention in JAX, three ways: seed 002 (and seed 001 §3.6) and seed 000's nanoGPT block.

- run_multihead_attention_wrapper: independent causal heads, outputs concatenated (MultiHeadAttentionWrapper).
- run_multihead_self_attention: one projection split into heads, then an output projection
  (MultiHeadAttention).
- run_gpt2_causal_self_attention: the same with one fused q/k/v projection with bias (nanoGPT
  CausalSelfAttention).
"""

from typing import Optional

import jax
import jax.numpy as jnp
from jaxtyping import Float

from .attention import run_causal_attention, run_causal_mask, run_scaled_dot_product_attention




def run_multihead_attention_wrapper(
    d_in: int,
    d_out: int,
    num_heads: int,
    q_proj_weights: Float[jax.Array, "num_heads d_out d_in"],
    k_proj_weights: Float[jax.Array, "num_heads d_out d_in"],
    v_proj_weights: Float[jax.Array, "num_heads d_out d_in"],
    in_features: Float[jax.Array, "... seq d_in"],
) -> Float[jax.Array, "... seq num_heads*d_out"]:
    """Multi-head attention as a stack of independent causal heads (seed 002 方案一, seed 001 §3.6.1).

    Head h is run_causal_attention with its own weights q_proj_weights[h], k_proj_weights[h],
    v_proj_weights[h] (no biases, scores scaled by √d_out); the head outputs are concatenated along
    the last axis in head order. There is no output projection.

    Args:
        d_in: size of each input embedding.
        d_out: size of each head's query, key, value and output vectors.
        num_heads: number of heads.
        q_proj_weights: query weights of all heads, shape (num_heads, d_out, d_in).
        k_proj_weights: key weights of all heads, shape (num_heads, d_out, d_in).
        v_proj_weights: value weights of all heads, shape (num_heads, d_out, d_in).
        in_features: input embeddings, shape (..., seq, d_in).

    Returns:
        Shape (..., seq, num_heads * d_out): columns h*d_out .. (h+1)*d_out - 1 are head h's output.

    中文：顺序堆叠多个因果注意力头，每个头权重独立，最后在最后一维拼接各头输出。
    """
    raise NotImplementedError("exercise multihead_attention_wrapper: implement run_multihead_attention_wrapper")


def run_multihead_self_attention(
    d_model: int,
    num_heads: int,
    q_proj_weight: Float[jax.Array, "d_model d_in"],
    k_proj_weight: Float[jax.Array, "d_model d_in"],
    v_proj_weight: Float[jax.Array, "d_model d_in"],
    o_proj_weight: Float[jax.Array, "d_model d_model"],
    in_features: Float[jax.Array, "... seq d_in"],
    o_proj_bias: Optional[Float[jax.Array, "d_model"]] = None,
) -> Float[jax.Array, "... seq d_model"]:
    """Causal multi-head self-attention by splitting one projection into heads (seed 002 方案二, §3.6.2).

    Project the input to queries, keys and values of size d_model, split each into num_heads heads of
    size d_k = d_model / num_heads, move the head axis in front of the sequence axis, run causal
    scaled dot-product attention per head (scaled by √d_k), put the heads back side by side and apply
    the output projection.

    Args:
        d_model: total size of queries, keys, values and output; divisible by num_heads.
        num_heads: number of heads.
        q_proj_weight: query projection, shape (d_model, d_in) (d_in may differ from d_model), (out, in) layout.
        k_proj_weight: key projection, shape (d_model, d_in).
        v_proj_weight: value projection, shape (d_model, d_in).
        o_proj_weight: output projection, shape (d_model, d_model).
        in_features: input embeddings, shape (..., seq, d_in).
        o_proj_bias: optional output projection bias, shape (d_model,).

    Returns:
        Shape (..., seq, d_model), dtype of `in_features`.

    中文：并行多头注意力：一次投影后拆分成多个头，先把头维移到序列维前面，按头做因果注意力，再合并并做输出投影。
    """
    raise NotImplementedError("exercise multihead_self_attention: implement run_multihead_self_attention")


def run_gpt2_causal_self_attention(
    n_embd: int,
    n_head: int,
    c_attn_weight: Float[jax.Array, "three_n_embd n_embd"],
    c_attn_bias: Float[jax.Array, "three_n_embd"],
    c_proj_weight: Float[jax.Array, "n_embd n_embd"],
    c_proj_bias: Float[jax.Array, "n_embd"],
    in_features: Float[jax.Array, "... seq n_embd"],
) -> Float[jax.Array, "... seq n_embd"]:
    """GPT-2's causal self-attention block, as in nanoGPT's CausalSelfAttention (seed 000 §3).

    One fused linear layer c_attn computes queries, keys and values together; its output is split
    along the last axis into q, k, v (in that order, n_embd each). Each is split into n_head heads
    of size n_embd / n_head, causal attention is scaled by √(n_embd / n_head), the heads are merged and
    the output projection c_proj is applied.

    Args:
        n_embd: embedding size; divisible by n_head.
        n_head: number of heads.
        c_attn_weight: fused q/k/v projection, shape (3 * n_embd, n_embd); rows 0..n_embd-1 give q,
            the next n_embd rows give k, the last n_embd rows give v.
        c_attn_bias: fused q/k/v bias, shape (3 * n_embd,).
        c_proj_weight: output projection, shape (n_embd, n_embd).
        c_proj_bias: output projection bias, shape (n_embd,).
        in_features: input embeddings, shape (..., seq, n_embd).

    Returns:
        Shape (..., seq, n_embd), dtype of `in_features`.

    中文：GPT-2（nanoGPT）因果自注意力：融合的 c_attn 一次算出 q、k、v，拆头做因果注意力，合并后经 c_proj。
    """
    raise NotImplementedError("exercise gpt2_causal_self_attention: implement run_gpt2_causal_self_attention")
