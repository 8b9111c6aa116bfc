"""Grouped-query attention (GQA) in JAX: multi-head causal self-attention whose query heads share fewer
key/value heads, as in Llama 2/3 and Mistral.

Decoding keeps every key and value head in a KV cache, so the cache's size grows with the number of kv
heads. GQA keeps num_heads query heads but only num_kv_heads key/value heads: the query heads form
num_kv_heads groups of num_heads / num_kv_heads consecutive heads, and every head of group g attends with
kv head g. num_kv_heads = num_heads is ordinary multi-head attention (seed 002's MultiHeadAttention);
num_kv_heads = 1 is multi-query attention (MQA).
"""

import math

import jax
import jax.numpy as jnp
from jaxtyping import Float


# BEGIN SOLUTION
def _split_heads(x: jax.Array, num_heads: int) -> jax.Array:
    """(..., seq, num_heads * d_head) -> (..., num_heads, seq, d_head)."""
    x = x.reshape(*x.shape[:-1], num_heads, -1)  # (..., seq, heads, d_head)
    return jnp.swapaxes(x, -3, -2)  # (..., heads, seq, d_head): attention runs over the last two axes


def _repeat_kv(x: jax.Array, group_size: int) -> jax.Array:
    """(..., num_kv_heads, seq, d_head) -> (..., num_kv_heads * group_size, seq, d_head): each kv head
    repeated for the group_size consecutive query heads that share it, so query head h meets kv head
    h // group_size (kv heads 0, 0, 1, 1, ... for groups of two)."""
    return jnp.repeat(x, group_size, axis=-3)  # (..., heads, seq, d_head)


def _causal_attention(q: jax.Array, k: jax.Array, v: jax.Array) -> jax.Array:
    """softmax(q kᵀ / √d_head) v with a causal mask, over the last two axes."""
    seq = q.shape[-2]
    scores = q @ jnp.swapaxes(k, -2, -1) / math.sqrt(q.shape[-1])  # (..., heads, seq, seq)
    allowed = jnp.tril(jnp.ones((seq, seq), dtype=bool))  # (seq, seq): key <= query
    scores = jnp.where(allowed, scores, -jnp.inf)
    return jax.nn.softmax(scores, axis=-1) @ v  # (..., heads, seq, d_head)


def _merge_heads(x: jax.Array) -> jax.Array:
    """(..., num_heads, seq, d_head) -> (..., seq, num_heads * d_head)."""
    x = jnp.swapaxes(x, -3, -2)  # (..., seq, heads, d_head)
    return x.reshape(*x.shape[:-2], -1)  # (..., seq, heads * d_head)
# END SOLUTION


def run_grouped_query_attention(
    d_model: int,
    num_heads: int,
    num_kv_heads: int,
    q_proj_weight: Float[jax.Array, "d_model d_model"],
    k_proj_weight: Float[jax.Array, "kv_dim d_model"],
    v_proj_weight: Float[jax.Array, "kv_dim d_model"],
    o_proj_weight: Float[jax.Array, "d_model d_model"],
    in_features: Float[jax.Array, "... seq d_model"],
) -> Float[jax.Array, "... seq d_model"]:
    """Causal grouped-query self-attention: num_heads query heads, num_kv_heads shared key/value heads.

    d_head = d_model / num_heads. Queries are split into num_heads heads of d_head, keys and values into
    num_kv_heads heads of d_head. Query head h attends (causally, scores scaled by √d_head) with kv head
    h // (num_heads / num_kv_heads): consecutive query heads share a kv head. The heads' outputs are put
    side by side in head order and projected by o_proj_weight.

    Args:
        d_model: size of the embeddings, the queries and the output; divisible by num_heads.
        num_heads: number of query heads; divisible by num_kv_heads.
        num_kv_heads: number of key/value heads (num_heads: multi-head attention; 1: multi-query attention).
        q_proj_weight: query projection, shape (d_model, d_model), nn.Linear layout (out, in).
        k_proj_weight: key projection, shape (num_kv_heads * d_head, d_model).
        v_proj_weight: value projection, shape (num_kv_heads * d_head, d_model).
        o_proj_weight: output projection, shape (d_model, d_model).
        in_features: input embeddings, shape (..., seq, d_model).

    Returns:
        Shape (..., seq, d_model), dtype of `in_features`.

    中文：分组查询注意力（GQA）：num_heads 个查询头共享 num_kv_heads 个键/值头，查询头 h 使用第
    h // (num_heads / num_kv_heads) 个键/值头（相邻的查询头共享同一个）；因果掩码，按 √d_head 缩放，合并后做输出投影。
    """
    # BEGIN SOLUTION
    group_size = num_heads // num_kv_heads  # query heads per kv head
    q = _split_heads(in_features @ q_proj_weight.T, num_heads)  # (..., heads, seq, d_head)
    k = _split_heads(in_features @ k_proj_weight.T, num_kv_heads)  # (..., kv_heads, seq, d_head)
    v = _split_heads(in_features @ v_proj_weight.T, num_kv_heads)  # (..., kv_heads, seq, d_head)
    k, v = _repeat_kv(k, group_size), _repeat_kv(v, group_size)  # (..., heads, seq, d_head)
    y = _causal_attention(q, k, v)  # (..., heads, seq, d_head)
    return _merge_heads(y) @ o_proj_weight.T  # (..., seq, d_model)
    # END SOLUTION
