# Your implementation. Generated from the reference by `python -m attnlab.instructor.generate template`:
# keep every function's name, arguments and annotations; replace each `raise NotImplementedError`.
"""Multi-head attention, three ways: seed 002 (and seed 001 §3.6) and seed 000's nanoGPT block.

- run_multihead_attention_wrapper: independent causal heads, outputs concatenated (MultiHeadAttentionWrapper).
- run_multihead_self_attention: one projection split into heads, then an output projection
  (MultiHeadAttention).
- run_gpt2_causal_self_attention: the same with one fused q/k/v projection with bias (nanoGPT
  CausalSelfAttention).
"""

import math

import torch
import torch.nn as nn
from jaxtyping import Float
from torch import Tensor

from .attention import (
    SelfAttention,
    set_linear,
)


def rope_rotate(x, token_positions, theta):
    """x: (..., seq_len, head_dim); token_positions broadcast against x's (..., seq_len)."""
    head_dim = x.shape[-1]
    compute_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    ids = torch.arange(0, head_dim // 2, dtype=compute_dtype, device=x.device)
    freqs = torch.pow(theta, -2 * ids / head_dim)  # (head_dim/2,)
    position = token_positions.to(device=x.device, dtype=compute_dtype).unsqueeze(-1)  # (..., seq_len, 1)
    embeddings = position * freqs  # (..., seq_len, head_dim/2)
    cos_pos = torch.cos(embeddings).repeat_interleave(2, dim=-1)  # (..., seq_len, head_dim)
    sin_pos = torch.sin(embeddings).repeat_interleave(2, dim=-1)
    x = x.to(compute_dtype)
    x2 = torch.stack([-x[..., 1::2], x[..., ::2]], dim=-1).reshape(x.shape)  # (-x1, x0, -x3, x2, ...)
    return x * cos_pos + x2 * sin_pos


class MultiHeadAttention(nn.Module):
    def __init__(self, d_in, hidden_size, num_heads, bias=True, theta=None):
        super().__init__()
        self.hidden_size = hidden_size
        self.num_heads = num_heads
        self.head_dim = hidden_size // num_heads
        self.theta = theta
        self.w_q = nn.Linear(d_in, hidden_size, bias=bias)
        self.w_k = nn.Linear(d_in, hidden_size, bias=bias)
        self.w_v = nn.Linear(d_in, hidden_size, bias=bias)
        self.w_o = nn.Linear(hidden_size, hidden_size, bias=bias)

    def forward(self, X, attention_mask=None, token_positions=None):
        # X shape is: (batch, seq_len, d_in)
        batch, seq_len = X.shape[0], X.shape[1]
        Q = self.w_q(X)  # (batch, seq_len, hidden_dim)
        K = self.w_k(X)
        V = self.w_v(X)
        # Split Q, K, V into num_heads, and put the heads before the sequence:
        # (batch, seq_len, num_heads, head_dim) -> (batch, num_heads, seq_len, head_dim)
        Q = Q.view(batch, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        K = K.view(batch, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        V = V.view(batch, seq_len, self.num_heads, self.head_dim).transpose(1, 2)
        if self.theta is not None:
            positions = token_positions.unsqueeze(1)  # (batch, 1, seq_len): the same for every head
            Q = rope_rotate(Q, positions, self.theta).to(V.dtype)
            K = rope_rotate(K, positions, self.theta).to(V.dtype)
        attention_value = torch.matmul(Q, K.transpose(-1, -2))  # (batch, num_heads, seq_len, seq_len)
        if attention_mask is not None:
            attention_value = attention_value.masked_fill(attention_mask == 0, float("-inf"))
        attention_weight = torch.softmax(attention_value / math.sqrt(self.head_dim), dim=-1)
        output = torch.matmul(attention_weight, V)  # (batch, num_heads, seq_len, head_dim)
        # 合并 num_heads: back to (batch, seq_len, num_heads, head_dim) first, then (batch, seq_len, hidden_dim)
        output = output.transpose(1, 2).contiguous().view(batch, seq_len, self.hidden_size)
        output = self.w_o(output)
        return output


def causal_attention_mask(seq_len, device):
    return torch.ones(seq_len, seq_len, device=device).tril()


def run_batched(net, in_features, token_positions=None):
    """MultiHeadAttention takes (batch, seq_len, d_in): fold all leading dims into one batch dim."""
    *lead, seq_len, d_in = in_features.shape
    X = in_features.reshape(-1, seq_len, d_in)
    if token_positions is not None:
        token_positions = token_positions.expand(*lead, seq_len).reshape(-1, seq_len)
    output = net(X, causal_attention_mask(seq_len, in_features.device), token_positions)
    return output.reshape(*lead, seq_len, output.shape[-1])


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
    heads = []
    for h in range(num_heads):
        head = SelfAttention(d_in, d_out, bias=False)
        set_linear(head.w_q, q_proj_weights[h])
        set_linear(head.w_k, k_proj_weights[h])
        set_linear(head.w_v, v_proj_weights[h])
        heads.append(head)
    mask = causal_attention_mask(in_features.shape[-2], in_features.device)
    return torch.cat([head(in_features, mask) for head in heads], dim=-1)


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
    net = MultiHeadAttention(in_features.shape[-1], d_model, num_heads)
    set_linear(net.w_q, q_proj_weight)
    set_linear(net.w_k, k_proj_weight)
    set_linear(net.w_v, v_proj_weight)
    set_linear(net.w_o, o_proj_weight, o_proj_bias)
    return run_batched(net, in_features)


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
    net = MultiHeadAttention(n_embd, n_embd, n_head)
    w_q, w_k, w_v = c_attn_weight[:n_embd], c_attn_weight[n_embd:2 * n_embd], c_attn_weight[2 * n_embd:]
    b_q, b_k, b_v = c_attn_bias[:n_embd], c_attn_bias[n_embd:2 * n_embd], c_attn_bias[2 * n_embd:]
    set_linear(net.w_q, w_q, b_q)
    set_linear(net.w_k, w_k, b_k)
    set_linear(net.w_v, w_v, b_v)
    set_linear(net.w_o, c_proj_weight, c_proj_bias)
    return run_batched(net, in_features)
