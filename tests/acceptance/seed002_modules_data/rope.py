# Your implementation. Generated from the reference by `python -m attnlab.instructor.generate template`:
# keep every function's name, arguments and annotations; replace each `raise NotImplementedError`.
"""Rotary position embedding (RoPE) and multi-head self-attention that uses it (seed 004).

RoPE encodes a token's position by rotating its query and key vectors: the pair (x[2i], x[2i+1]) is
rotated by the angle p * theta^(-2i/d_k), where p is the token's position. The dot product of a rotated
query and a rotated key then depends only on the difference of their positions. Values are not rotated.
"""

import torch
import torch.nn as nn
from jaxtyping import Float, Int
from torch import Tensor

from .attention import load_linear


class MultiHeadAttentionRoPE(nn.Module):
    """seed 002's MultiHeadAttention (no out_proj bias) with RoPE on queries and keys after the head split."""

    def __init__(self, d_in, d_out, context_length, num_heads, theta):
        super().__init__()
        assert d_out % num_heads == 0, "d_out must be divisible by num_heads"
        self.d_out = d_out
        self.num_heads = num_heads
        self.head_dim = d_out // num_heads
        self.theta = theta
        self.context_length = context_length
        self.W_query = nn.Linear(d_in, d_out, bias=False)
        self.W_key = nn.Linear(d_in, d_out, bias=False)
        self.W_value = nn.Linear(d_in, d_out, bias=False)
        self.out_proj = nn.Linear(d_out, d_out, bias=False)

    def forward(self, x, token_positions):
        b, num_tokens, d_in = x.shape
        keys = self.W_key(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        queries = self.W_query(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)
        values = self.W_value(x).view(b, num_tokens, self.num_heads, self.head_dim).transpose(1, 2)

        # token_positions: (b, num_tokens) -> (b, 1, num_tokens), the same for every head
        positions = token_positions.unsqueeze(1)
        queries = run_rope(self.head_dim, self.theta, self.context_length, queries, positions)
        keys = run_rope(self.head_dim, self.theta, self.context_length, keys, positions)

        attn_scores = queries @ keys.transpose(2, 3)
        mask = torch.triu(torch.ones(num_tokens, num_tokens, device=x.device), diagonal=1)
        attn_scores.masked_fill_(mask.bool(), -torch.inf)
        attn_weights = torch.softmax(attn_scores / keys.shape[-1] ** 0.5, dim=-1)

        context_vec = (attn_weights @ values).transpose(1, 2)
        context_vec = context_vec.contiguous().view(b, num_tokens, self.d_out)
        return self.out_proj(context_vec)


def run_rope(
    d_k: int,
    theta: float,
    max_seq_len: int,
    in_query_or_key: Float[Tensor, "... seq d_k"],
    token_positions: Int[Tensor, "... seq"],
) -> Float[Tensor, "... seq d_k"]:
    """Rotate interleaved pairs of a query or key tensor by position-dependent angles (seed 004).

    For i = 0 .. d_k/2 - 1 and position p, the angle is a = p * theta^(-2i/d_k), and
        out[2i]   = x[2i] cos(a) - x[2i+1] sin(a)
        out[2i+1] = x[2i] sin(a) + x[2i+1] cos(a).
    Angles and the rotation are computed in at least float32 (float64 stays float64); the result is
    cast back to the input's dtype.

    Args:
        d_k: size of the last dimension of `in_query_or_key`; even.
        theta: RoPE base, e.g. 10000.0.
        max_seq_len: largest position + 1 that callers may use. A module would precompute cos/sin tables
            of this length; this function computes the angles directly, so it does not use it and does
            not check positions against it.
        in_query_or_key: queries or keys, shape (..., seq, d_k).
        token_positions: integer position of every token, shape (..., seq); its leading dimensions
            broadcast against those of `in_query_or_key` (e.g. shape (seq,) for all batch entries).

    Returns:
        The rotated tensor, shape (..., seq, d_k), dtype and device of `in_query_or_key`.

    中文：旋转位置编码：把相邻两维 (x[2i], x[2i+1]) 按角度 p·θ^(-2i/d_k) 旋转，p 为词元位置。
    """
    x = in_query_or_key
    compute_dtype = torch.float64 if x.dtype == torch.float64 else torch.float32
    i = torch.arange(0, d_k // 2, device=x.device, dtype=compute_dtype)
    inv_freq = 1.0 / (theta ** (2 * i / d_k))  # (d_k/2,)
    angles = token_positions.to(device=x.device, dtype=compute_dtype).unsqueeze(-1) * inv_freq  # (..., seq, d_k/2)
    cos = torch.cos(angles)
    sin = torch.sin(angles)

    x1 = x[..., 0::2].to(compute_dtype)  # x[2i]
    x2 = x[..., 1::2].to(compute_dtype)  # x[2i+1]
    out1 = x1 * cos - x2 * sin
    out2 = x1 * sin + x2 * cos
    out = torch.stack([out1, out2], dim=-1).reshape(*out1.shape[:-1], d_k)
    return out.to(x.dtype)


def run_multihead_self_attention_with_rope(
    d_model: int,
    num_heads: int,
    max_seq_len: int,
    theta: float,
    q_proj_weight: Float[Tensor, "d_model d_in"],
    k_proj_weight: Float[Tensor, "d_model d_in"],
    v_proj_weight: Float[Tensor, "d_model d_in"],
    o_proj_weight: Float[Tensor, "d_model d_model"],
    in_features: Float[Tensor, "... seq d_in"],
    token_positions: Int[Tensor, "... seq"] | None = None,
) -> Float[Tensor, "... seq d_model"]:
    """Causal multi-head self-attention with RoPE applied to queries and keys (seed 004).

    As run_multihead_self_attention without output bias, except that after splitting into heads
    (d_k = d_model / num_heads) every head's queries and keys are rotated with run_rope, using the same
    positions for all heads. Values are not rotated.

    Args:
        d_model: total size of queries, keys, values and output; divisible by num_heads.
        num_heads: number of heads.
        max_seq_len: largest position + 1 allowed, passed on to run_rope.
        theta: RoPE base, passed on to run_rope.
        q_proj_weight: query projection, shape (d_model, d_in).
        k_proj_weight: key projection, shape (d_model, d_in).
        v_proj_weight: value projection, shape (d_model, d_in).
        o_proj_weight: output projection, shape (d_model, d_model).
        in_features: input embeddings, shape (..., seq, d_in).
        token_positions: optional integer positions, shape (..., seq), broadcastable against the
            batch dimensions of `in_features`; default 0, 1, ..., seq - 1.

    Returns:
        Shape (..., seq, d_model), dtype and device of `in_features`.

    中文：带旋转位置编码的多头因果自注意力：拆头之后对每个头的 q、k 做 RoPE，v 不旋转。
    """
    *batch, num_tokens, d_in = in_features.shape
    if token_positions is None:
        token_positions = torch.arange(num_tokens, device=in_features.device)
    # one row of positions per sequence, matching the folded batch below
    token_positions = token_positions.expand(*batch, num_tokens).reshape(-1, num_tokens)

    mha = MultiHeadAttentionRoPE(d_in, d_model, max_seq_len, num_heads, theta)
    mha = mha.to(device=in_features.device, dtype=in_features.dtype)
    load_linear(mha.W_query, q_proj_weight)
    load_linear(mha.W_key, k_proj_weight)
    load_linear(mha.W_value, v_proj_weight)
    load_linear(mha.out_proj, o_proj_weight)

    x = in_features.reshape(-1, num_tokens, d_in)
    return mha(x, token_positions).reshape(*batch, num_tokens, d_model)
