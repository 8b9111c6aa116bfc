# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Single-head attention, built up in the order of seed 001 §3.3–3.5 and seed 004.

simple self-attention (no weights) -> scaled dot-product attention -> self-attention with trainable
projections -> the causal mask -> causal attention -> dropout. Every function that normalises scores goes
through run_softmax, and the attention variants all reduce to run_scaled_dot_product_attention.
"""

import math

import torch
import torch.nn.functional as F
from jaxtyping import Bool, Float
from torch import Tensor

from .softmax import run_softmax


def run_simple_self_attention(inputs: Float[Tensor, "... seq d_in"]) -> Float[Tensor, "... seq d_in"]:
    """Weight-free self-attention, softmax(X Xᵀ) X (seed 001 §3.3.1–3.3.2).

    Every token is its own query, key and value: the score of token i for token j is the dot product
    x_i · x_j, each row of scores goes through softmax, and the context vector of token i is the
    weighted sum of all input vectors. No scaling, no mask, no trainable weights.

    Args:
        inputs: token embeddings X, shape (..., seq, d_in), any number of leading batch dimensions.

    Returns:
        Context vectors, shape (..., seq, d_in), dtype and device of `inputs`.

    中文：无可训练权重的简单自注意力：注意力分数 X·Xᵀ，按行 softmax，再对输入加权求和。
    """
    raise NotImplementedError("exercise simple_self_attention: implement run_simple_self_attention")


def run_scaled_dot_product_attention(
    Q: Float[Tensor, "... queries d_k"],
    K: Float[Tensor, "... keys d_k"],
    V: Float[Tensor, "... keys d_v"],
    mask: Bool[Tensor, "... queries keys"] | Float[Tensor, "... queries keys"] | None = None,
) -> Float[Tensor, "... queries d_v"]:
    """Scaled dot-product attention, softmax(Q Kᵀ / √d_k) V, with an optional mask (seed 004).

    Args:
        Q: queries, shape (..., queries, d_k).
        K: keys, shape (..., keys, d_k).
        V: values, shape (..., keys, d_v); d_v may differ from d_k.
        mask: optional, broadcastable to (..., queries, keys). True (or a non-zero float such as 1.0)
            means the query may attend to that key; False (or 0.0) means it may not. Disallowed scores
            are set to -inf before the softmax, so they get weight exactly 0. Every query must be allowed
            at least one key, otherwise its row of weights is NaN.

    Returns:
        Attention output, shape (..., queries, d_v), dtype and device of Q: for each query, the average
        of the value rows weighted by softmax over the keys.

    中文：缩放点积注意力 softmax(QKᵀ/√d_k)V；掩码为 False/0 的位置在 softmax 前置为 -inf。
    """
    raise NotImplementedError("exercise scaled_dot_product_attention: implement run_scaled_dot_product_attention")


def run_self_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[Tensor, "d_out d_in"],
    k_proj_weight: Float[Tensor, "d_out d_in"],
    v_proj_weight: Float[Tensor, "d_out d_in"],
    in_features: Float[Tensor, "... seq d_in"],
    q_proj_bias: Float[Tensor, "d_out"] | None = None,
    k_proj_bias: Float[Tensor, "d_out"] | None = None,
    v_proj_bias: Float[Tensor, "d_out"] | None = None,
) -> Float[Tensor, "... seq d_out"]:
    """Self-attention with trainable query, key and value projections (seed 001 §3.4, SelfAttention_v2).

    queries = X W_qᵀ (+ b_q), keys = X W_kᵀ (+ b_k), values = X W_vᵀ (+ b_v), then
    softmax(queries keysᵀ / √d_out) values. Every token attends to every token (no mask).

    Args:
        d_in: size of each input embedding.
        d_out: size of each query, key and value vector (and of the output).
        q_proj_weight: query projection W_q, shape (d_out, d_in), torch.nn.Linear layout.
        k_proj_weight: key projection W_k, shape (d_out, d_in).
        v_proj_weight: value projection W_v, shape (d_out, d_in).
        in_features: input embeddings X, shape (..., seq, d_in).
        q_proj_bias: optional query bias, shape (d_out,).
        k_proj_bias: optional key bias, shape (d_out,).
        v_proj_bias: optional value bias, shape (d_out,).

    Returns:
        Context vectors, shape (..., seq, d_out), dtype and device of `in_features`.

    中文：带可训练权重 W_q、W_k、W_v 的自注意力，分数除以 √d_out，不加掩码。
    """
    raise NotImplementedError("exercise self_attention: implement run_self_attention")


def run_causal_mask(seq_len: int, device: torch.device | str | None = None) -> Bool[Tensor, "seq_len seq_len"]:
    """The causal mask of seed 001 §3.5.1 and seed 000: which keys each query may attend to.

    Row i is a query position, column j a key position; entry (i, j) is True when j <= i (the token
    itself and earlier tokens) and False when j > i (future tokens). This is torch.tril of a matrix of
    ones, as a bool tensor, in the convention of run_scaled_dot_product_attention (True = may attend).

    Args:
        seq_len: number of positions.
        device: where to create the mask (default: torch's default device).

    Returns:
        Bool tensor of shape (seq_len, seq_len), lower triangle (diagonal included) True.

    中文：因果掩码：下三角（含对角线）为 True，第 i 个位置只能看到第 j <= i 个位置。
    """
    raise NotImplementedError("exercise causal_mask: implement run_causal_mask")


def run_causal_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[Tensor, "d_out d_in"],
    k_proj_weight: Float[Tensor, "d_out d_in"],
    v_proj_weight: Float[Tensor, "d_out d_in"],
    in_features: Float[Tensor, "... seq d_in"],
    q_proj_bias: Float[Tensor, "d_out"] | None = None,
    k_proj_bias: Float[Tensor, "d_out"] | None = None,
    v_proj_bias: Float[Tensor, "d_out"] | None = None,
) -> Float[Tensor, "... seq d_out"]:
    """Causal self-attention: run_self_attention where no token sees later tokens (seed 001 §3.5.3).

    Same projections and √d_out scaling as run_self_attention; scores of future positions are set to
    -inf before the softmax (run_causal_mask), so output row i depends only on tokens 0..i.
    No dropout (it is a separate exercise, run_dropout).

    Args:
        d_in: size of each input embedding.
        d_out: size of each query, key and value vector (and of the output).
        q_proj_weight: query projection W_q, shape (d_out, d_in), torch.nn.Linear layout.
        k_proj_weight: key projection W_k, shape (d_out, d_in).
        v_proj_weight: value projection W_v, shape (d_out, d_in).
        in_features: input embeddings X, shape (..., seq, d_in).
        q_proj_bias: optional query bias, shape (d_out,).
        k_proj_bias: optional key bias, shape (d_out,).
        v_proj_bias: optional value bias, shape (d_out,).

    Returns:
        Context vectors, shape (..., seq, d_out), dtype and device of `in_features`.

    中文：因果注意力：在 softmax 之前用因果掩码屏蔽未来位置，每个位置只汇聚自身及之前的信息。
    """
    raise NotImplementedError("exercise causal_attention: implement run_causal_attention")


def run_dropout(
    in_features: Float[Tensor, "*shape"],
    p: float,
    training: bool = True,
    generator: torch.Generator | None = None,
) -> Float[Tensor, "*shape"]:
    """Inverted dropout (seed 001 §3.5.2): zero each entry with probability p, scale survivors by 1/(1-p).

    Scaling the kept entries keeps the expected value of every entry equal to the input, so nothing
    needs to change at evaluation time, when dropout is the identity. The random numbers are drawn as
    `torch.rand(in_features.shape, generator=generator, dtype=in_features.dtype,
    device=in_features.device)`; an entry is kept where that number is >= p.

    Args:
        in_features: tensor of any shape `*shape` (seed 001 applies it to attention weights).
        p: drop probability, 0 <= p <= 1. p == 0 keeps everything; p == 1 gives all zeros.
        training: when False, return `in_features` unchanged: a copy, or the input itself as torch.nn.Dropout
            returns it (so at p = 0).
        generator: optional torch.Generator that all random draws come from (for reproducibility).

    Returns:
        A tensor of shape `*shape`, dtype and device of `in_features`: a new one while it drops anything.

    中文：反向缩放的 dropout：训练时以概率 p 置零，保留的元素乘以 1/(1-p)；推理时原样返回。
    """
    raise NotImplementedError("exercise dropout: implement run_dropout")
