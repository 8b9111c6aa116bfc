# Your implementation. Generated from the reference by `python -m attnlab.instructor.generate template`:
# keep every function's name, arguments and annotations; replace each `raise NotImplementedError`.
"""Multi-head attention, three ways: seed 002 (and seed 001 §3.6) and seed 000's nanoGPT block.

- run_multihead_attention_wrapper: independent causal heads, outputs concatenated (MultiHeadAttentionWrapper).
- run_multihead_self_attention: one projection split into heads, then an output projection
  (MultiHeadAttention).
- run_gpt2_causal_self_attention: the same with one fused q/k/v projection with bias (nanoGPT
  CausalSelfAttention).
"""

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

from .attention import (
    CausalAttention,
    load_weights,
    qkv_state,
)


class MultiHeadAttentionWrapper(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        self.heads = nn.ModuleList(
            [CausalAttention(d_in, d_out, context_length, dropout, qkv_bias)
             for _ in range(num_heads)]
        )

    def forward(self, x):
        return torch.cat([head(x) for head in self.heads], dim=-1)


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, d_out, context_length, dropout, num_heads, qkv_bias=False):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads

        self.W_query = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_key = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.W_value = nn.Linear(d_in, d_out, bias=qkv_bias)
        self.out_proj = nn.Linear(d_out, d_out)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('mask', torch.triu(torch.ones(context_length, context_length), diagonal=1))

    def forward(self, x):
        *b, num_tokens, d_in = x.shape
        keys = self.W_key(x)
        queries = self.W_query(x)
        values = self.W_value(x)

        # (*b, num_tokens, d_out) -> (*b, num_tokens, num_heads, head_dim) -> (*b, num_heads, num_tokens, head_dim)
        keys = keys.view(*b, num_tokens, self.num_heads, self.head_dim).transpose(-3, -2)
        queries = queries.view(*b, num_tokens, self.num_heads, self.head_dim).transpose(-3, -2)
        values = values.view(*b, num_tokens, self.num_heads, self.head_dim).transpose(-3, -2)

        attn_scores = queries @ keys.transpose(-2, -1)
        mask_bool = self.mask.bool()[:num_tokens, :num_tokens]
        attn_scores.masked_fill_(mask_bool, -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)
        attn_weights = self.dropout(attn_weights)

        context_vec = (attn_weights @ values).transpose(-3, -2)
        context_vec = context_vec.contiguous().view(*b, num_tokens, self.d_out)
        context_vec = self.out_proj(context_vec)
        return context_vec


def run_multihead_attention_wrapper(
    d_in: int,
    d_out: int,
    num_heads: int,
    q_proj_weights: Float[Tensor, "num_heads d_out d_in"],
    k_proj_weights: Float[Tensor, "num_heads d_out d_in"],
    v_proj_weights: Float[Tensor, "num_heads d_out d_in"],
    in_features: Float[Tensor, "... seq d_in"],
) -> Float[Tensor, "... seq num_heads*d_out"]:
    """Multi-head attention as a stack of independent causal heads (seed 002 方案一, seed 001 §3.6.1).

    Head h is run_causal_attention with its own weights q_proj_weights[h], k_proj_weights[h],
    v_proj_weights[h] (no biases, scores scaled by √d_out); the head outputs are concatenated along
    the last dimension in head order. There is no output projection.

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
    mha = MultiHeadAttentionWrapper(d_in, d_out, in_features.shape[-2], 0.0, num_heads=num_heads)
    mha = mha.to(device=in_features.device, dtype=in_features.dtype)
    weights = {}
    for h in range(num_heads):
        weights.update(qkv_state((q_proj_weights[h], k_proj_weights[h], v_proj_weights[h]),
                                 (None, None, None), prefix=f"heads.{h}."))
    load_weights(mha, weights)
    return mha(in_features)


def run_multihead_self_attention(
    d_model: int,
    num_heads: int,
    q_proj_weight: Float[Tensor, "d_model d_in"],
    k_proj_weight: Float[Tensor, "d_model d_in"],
    v_proj_weight: Float[Tensor, "d_model d_in"],
    o_proj_weight: Float[Tensor, "d_model d_model"],
    in_features: Float[Tensor, "... seq d_in"],
    o_proj_bias: Float[Tensor, "d_model"] | None = None,
) -> Float[Tensor, "... seq d_model"]:
    """Causal multi-head self-attention by splitting one projection into heads (seed 002 方案二, §3.6.2).

    Project the input to queries, keys and values of size d_model, split each into num_heads heads of
    size d_k = d_model / num_heads, move the head axis in front of the sequence axis, run causal
    scaled dot-product attention per head (scaled by √d_k), put the heads back side by side and apply
    the output projection.

    Args:
        d_model: total size of queries, keys, values and output; divisible by num_heads.
        num_heads: number of heads.
        q_proj_weight: query projection, shape (d_model, d_in) (d_in may differ from d_model).
        k_proj_weight: key projection, shape (d_model, d_in).
        v_proj_weight: value projection, shape (d_model, d_in).
        o_proj_weight: output projection, shape (d_model, d_model).
        in_features: input embeddings, shape (..., seq, d_in).
        o_proj_bias: optional output projection bias, shape (d_model,).

    Returns:
        Shape (..., seq, d_model), dtype and device of `in_features`.

    中文：并行多头注意力：一次投影后拆分成多个头，先把头维移到序列维前面，按头做因果注意力，再合并并做输出投影。
    """
    d_in = in_features.shape[-1]
    mha = MultiHeadAttention(d_in, d_model, in_features.shape[-2], 0.0, num_heads=num_heads)
    mha = mha.to(device=in_features.device, dtype=in_features.dtype)
    if o_proj_bias is None:  # the notes' out_proj always has a bias: no bias = a zero bias
        o_proj_bias = torch.zeros(d_model, dtype=o_proj_weight.dtype, device=o_proj_weight.device)
    weights = qkv_state((q_proj_weight, k_proj_weight, v_proj_weight), (None, None, None))
    weights["out_proj.weight"] = o_proj_weight
    weights["out_proj.bias"] = o_proj_bias
    load_weights(mha, weights)
    return mha(in_features)


def run_gpt2_causal_self_attention(
    n_embd: int,
    n_head: int,
    c_attn_weight: Float[Tensor, "three_n_embd n_embd"],
    c_attn_bias: Float[Tensor, "three_n_embd"],
    c_proj_weight: Float[Tensor, "n_embd n_embd"],
    c_proj_bias: Float[Tensor, "n_embd"],
    in_features: Float[Tensor, "... seq n_embd"],
) -> Float[Tensor, "... seq n_embd"]:
    """GPT-2's causal self-attention block, as in nanoGPT's CausalSelfAttention (seed 000 §3).

    One fused linear layer c_attn computes queries, keys and values together; its output is split
    along the last dimension into q, k, v (in that order, n_embd each). Each is split into n_head heads
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
        Shape (..., seq, n_embd), dtype and device of `in_features`.

    中文：GPT-2（nanoGPT）因果自注意力：融合的 c_attn 一次算出 q、k、v，拆头做因果注意力，合并后经 c_proj。
    """
    mha = MultiHeadAttention(n_embd, n_embd, in_features.shape[-2], 0.0, num_heads=n_head, qkv_bias=True)
    mha = mha.to(device=in_features.device, dtype=in_features.dtype)
    weights = qkv_state(c_attn_weight.chunk(3, dim=0), c_attn_bias.chunk(3, dim=0))
    weights["out_proj.weight"] = c_proj_weight
    weights["out_proj.bias"] = c_proj_bias
    load_weights(mha, weights)
    return mha(in_features)
