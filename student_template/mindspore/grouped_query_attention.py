# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
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
    raise NotImplementedError("exercise grouped_query_attention: implement run_grouped_query_attention")
