"""Grouped-query attention (GQA) in MindSpore: multi-head causal self-attention whose query heads share fewer
key/value heads, as in Llama 2/3 and Mistral.

Decoding keeps every key and value head in a KV cache, so the cache's size grows with the number of kv
heads. GQA keeps num_heads query heads but only num_kv_heads key/value heads: the query heads form
num_kv_heads groups of num_heads / num_kv_heads consecutive heads, and every head of group g attends with
kv head g. num_kv_heads = num_heads is ordinary multi-head attention (seed 001's MultiHeadAttention);
num_kv_heads = 1 is multi-query attention (MQA).
"""

import mindspore
from jaxtyping import Float
from mindspore import nn, ops


# BEGIN SOLUTION
def _dense(weight: mindspore.Tensor) -> nn.Dense:
    """nn.Dense(d_in, d_out, has_bias=False) holding `weight` (d_out, d_in), in its dtype."""
    d_out, d_in = weight.shape
    return nn.Dense(d_in, d_out, weight_init=weight, has_bias=False, dtype=weight.dtype)


def _split_heads(x: mindspore.Tensor, num_heads: int) -> mindspore.Tensor:
    """(..., seq, num_heads * d_head) -> (..., num_heads, seq, d_head)."""
    *batch, seq_len, width = x.shape
    x = ops.reshape(x, (*batch, seq_len, num_heads, width // num_heads))  # (..., seq, heads, d_head)
    return x.swapaxes(-3, -2)  # (..., heads, seq, d_head): attention runs over the last two axes


def _repeat_kv(x: mindspore.Tensor, group_size: int) -> mindspore.Tensor:
    """(..., num_kv_heads, seq, d_head) -> (..., num_kv_heads * group_size, seq, d_head): each kv head
    repeated for the group_size consecutive query heads that share it, so query head h meets kv head
    h // group_size (kv heads 0, 0, 1, 1, ... for groups of two)."""
    return ops.repeat_interleave(x, group_size, axis=-3)  # (..., heads, seq, d_head)


def _causal_attention(q, k, v) -> mindspore.Tensor:
    """softmax(q kᵀ / √d_head) v with a causal mask, over the last two axes."""
    seq = q.shape[-2]
    scores = ops.matmul(q, k.swapaxes(-2, -1)) / q.shape[-1] ** 0.5  # (..., heads, seq, seq)
    allowed = ops.tril(ops.ones((seq, seq), mindspore.bool_))  # (seq, seq): key <= query
    scores = ops.masked_fill(scores, ~allowed, float("-inf"))
    return ops.matmul(nn.Softmax(axis=-1)(scores), v)  # (..., heads, seq, d_head)


def _merge_heads(x: mindspore.Tensor) -> mindspore.Tensor:
    """(..., num_heads, seq, d_head) -> (..., seq, num_heads * d_head)."""
    *batch, num_heads, seq_len, d_head = x.shape
    return ops.reshape(x.swapaxes(-3, -2), (*batch, seq_len, num_heads * d_head))  # (..., seq, heads * d_head)
# END SOLUTION


def run_grouped_query_attention(
    d_model: int,
    num_heads: int,
    num_kv_heads: int,
    q_proj_weight: Float[mindspore.Tensor, "d_model d_model"],
    k_proj_weight: Float[mindspore.Tensor, "kv_dim d_model"],
    v_proj_weight: Float[mindspore.Tensor, "kv_dim d_model"],
    o_proj_weight: Float[mindspore.Tensor, "d_model d_model"],
    in_features: Float[mindspore.Tensor, "... seq d_model"],
) -> Float[mindspore.Tensor, "... seq d_model"]:
    """Causal grouped-query self-attention: num_heads query heads, num_kv_heads shared key/value heads.

    d_head = d_model / num_heads. Queries are split into num_heads heads of d_head, keys and values into
    num_kv_heads heads of d_head. Query head h attends (causally, scores scaled by √d_head) with kv head
    h // (num_heads / num_kv_heads): consecutive query heads share a kv head. The heads' outputs are put
    side by side in head order and projected by o_proj_weight.

    Args:
        d_model: size of the embeddings, the queries and the output; divisible by num_heads.
        num_heads: number of query heads; divisible by num_kv_heads.
        num_kv_heads: number of key/value heads (num_heads: multi-head attention; 1: multi-query attention).
        q_proj_weight: query projection, shape (d_model, d_model), nn.Dense's weight layout (out, in).
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
    q = _split_heads(_dense(q_proj_weight)(in_features), num_heads)  # (..., heads, seq, d_head)
    k = _split_heads(_dense(k_proj_weight)(in_features), num_kv_heads)  # (..., kv_heads, seq, d_head)
    v = _split_heads(_dense(v_proj_weight)(in_features), num_kv_heads)  # (..., kv_heads, seq, d_head)
    k, v = _repeat_kv(k, group_size), _repeat_kv(v, group_size)  # (..., heads, seq, d_head)
    y = _causal_attention(q, k, v)  # (..., heads, seq, d_head)
    return _dense(o_proj_weight)(_merge_heads(y))  # (..., seq, d_model)
    # END SOLUTION
