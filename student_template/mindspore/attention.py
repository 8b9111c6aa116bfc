# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Single-head attention in MindSpore, built up in the order of seed 001 §3.3–3.5 and seed 004.

simple self-attention (no weights) -> scaled dot-product attention -> self-attention with trainable
projections -> the causal mask -> causal attention -> dropout. As in seed 001: nn.Dense layers (here holding
the weights you are given), ops.matmul, ops.masked_fill with -inf, nn.Softmax(axis=-1).
"""

from typing import Optional, Union

import mindspore
from jaxtyping import Bool, Float
from mindspore import nn, ops




def run_simple_self_attention(
    inputs: Float[mindspore.Tensor, "... seq d_in"],
) -> Float[mindspore.Tensor, "... seq d_in"]:
    """Weight-free self-attention, softmax(X Xᵀ) X (seed 001 §3.3.1–3.3.2).

    Every token is its own query, key and value: the score of token i for token j is the dot product
    x_i · x_j, each row of scores goes through softmax, and the context vector of token i is the
    weighted sum of all input vectors. No scaling, no mask, no trainable weights.

    Args:
        inputs: token embeddings X, a mindspore.Tensor of shape (..., seq, d_in), any number of leading
            batch dimensions (seed 001's `inputs @ inputs.T` covers only the 2-D case).

    Returns:
        Context vectors, shape (..., seq, d_in), dtype of `inputs`.

    中文：无可训练权重的简单自注意力：注意力分数 X·Xᵀ，按行 softmax，再对输入加权求和。
    """
    raise NotImplementedError("exercise simple_self_attention: implement run_simple_self_attention")


def run_scaled_dot_product_attention(
    Q: Float[mindspore.Tensor, "... queries d_k"],
    K: Float[mindspore.Tensor, "... keys d_k"],
    V: Float[mindspore.Tensor, "... keys d_v"],
    mask: Optional[Union[Bool[mindspore.Tensor, "... queries keys"],
                         Float[mindspore.Tensor, "... queries keys"]]] = None,
) -> Float[mindspore.Tensor, "... queries d_v"]:
    """Scaled dot-product attention, softmax(Q Kᵀ / √d_k) V, with an optional mask (seed 004).

    Args:
        Q: queries, shape (..., queries, d_k).
        K: keys, shape (..., keys, d_k).
        V: values, shape (..., keys, d_v); d_v may differ from d_k.
        mask: optional, broadcastable to (..., queries, keys). True (or a non-zero float such as 1.0)
            means the query may attend to that key; False (or 0.0) means it may not. Disallowed scores
            are set to -inf before the softmax (ops.masked_fill), so they get weight exactly 0. Every query
            must be allowed at least one key, otherwise its row of weights is NaN.

    Returns:
        Attention output, shape (..., queries, d_v), dtype of Q: for each query, the average of the value
        rows weighted by softmax over the keys.

    中文：缩放点积注意力 softmax(QKᵀ/√d_k)V；掩码为 False/0 的位置在 softmax 前置为 -inf。
    """
    raise NotImplementedError("exercise scaled_dot_product_attention: implement run_scaled_dot_product_attention")


def run_self_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[mindspore.Tensor, "d_out d_in"],
    k_proj_weight: Float[mindspore.Tensor, "d_out d_in"],
    v_proj_weight: Float[mindspore.Tensor, "d_out d_in"],
    in_features: Float[mindspore.Tensor, "... seq d_in"],
    q_proj_bias: Optional[Float[mindspore.Tensor, "d_out"]] = None,
    k_proj_bias: Optional[Float[mindspore.Tensor, "d_out"]] = None,
    v_proj_bias: Optional[Float[mindspore.Tensor, "d_out"]] = None,
) -> Float[mindspore.Tensor, "... seq d_out"]:
    """Self-attention with trainable query, key and value projections (seed 001 §3.4, SelfAttention_v2).

    queries = X W_qᵀ (+ b_q), keys = X W_kᵀ (+ b_k), values = X W_vᵀ (+ b_v), then
    softmax(queries keysᵀ / √d_out) values. Every token attends to every token (no mask).

    Args:
        d_in: size of each input embedding.
        d_out: size of each query, key and value vector (and of the output).
        q_proj_weight: query projection W_q, shape (d_out, d_in): nn.Dense(d_in, d_out)'s weight layout.
        k_proj_weight: key projection W_k, shape (d_out, d_in).
        v_proj_weight: value projection W_v, shape (d_out, d_in).
        in_features: input embeddings X, shape (..., seq, d_in).
        q_proj_bias: optional query bias, shape (d_out,).
        k_proj_bias: optional key bias, shape (d_out,).
        v_proj_bias: optional value bias, shape (d_out,).

    Returns:
        Context vectors, shape (..., seq, d_out), dtype of `in_features`.

    中文：带可训练权重 W_q、W_k、W_v 的自注意力，分数除以 √d_out，不加掩码。
    """
    raise NotImplementedError("exercise self_attention: implement run_self_attention")


def run_causal_mask(seq_len: int, device: Optional[str] = None) -> Bool[mindspore.Tensor, "seq_len seq_len"]:
    """The causal mask of seed 001 §3.5.1 and seed 000: which keys each query may attend to.

    Row i is a query position, column j a key position; entry (i, j) is True when j <= i (the token
    itself and earlier tokens) and False when j > i (future tokens). This is ops.tril of a matrix of
    ones, as a bool tensor, in the convention of run_scaled_dot_product_attention (True = may attend).
    (Seed 001 builds the opposite, ops.triu(..., diagonal=1), the positions to mask.)

    Args:
        seq_len: number of positions.
        device: None on the CPU (MindSpore places every tensor on the device chosen with
            mindspore.set_device); kept so the signature matches the other frameworks'.

    Returns:
        Bool mindspore.Tensor of shape (seq_len, seq_len), lower triangle (diagonal included) True.

    中文：因果掩码：下三角（含对角线）为 True，第 i 个位置只能看到第 j <= i 个位置。
    """
    raise NotImplementedError("exercise causal_mask: implement run_causal_mask")


def run_causal_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[mindspore.Tensor, "d_out d_in"],
    k_proj_weight: Float[mindspore.Tensor, "d_out d_in"],
    v_proj_weight: Float[mindspore.Tensor, "d_out d_in"],
    in_features: Float[mindspore.Tensor, "... seq d_in"],
    q_proj_bias: Optional[Float[mindspore.Tensor, "d_out"]] = None,
    k_proj_bias: Optional[Float[mindspore.Tensor, "d_out"]] = None,
    v_proj_bias: Optional[Float[mindspore.Tensor, "d_out"]] = None,
) -> Float[mindspore.Tensor, "... seq d_out"]:
    """Causal self-attention: run_self_attention where no token sees later tokens (seed 001 §3.5.3).

    Same projections and √d_out scaling as run_self_attention; scores of future positions are set to
    -inf before the softmax (run_causal_mask), so output row i depends only on tokens 0..i.
    No dropout (it is a separate exercise, run_dropout).

    Args:
        d_in: size of each input embedding.
        d_out: size of each query, key and value vector (and of the output).
        q_proj_weight: query projection W_q, shape (d_out, d_in): nn.Dense(d_in, d_out)'s weight layout.
        k_proj_weight: key projection W_k, shape (d_out, d_in).
        v_proj_weight: value projection W_v, shape (d_out, d_in).
        in_features: input embeddings X, shape (..., seq, d_in).
        q_proj_bias: optional query bias, shape (d_out,).
        k_proj_bias: optional key bias, shape (d_out,).
        v_proj_bias: optional value bias, shape (d_out,).

    Returns:
        Context vectors, shape (..., seq, d_out), dtype of `in_features`.

    中文：因果注意力：在 softmax 之前用因果掩码屏蔽未来位置，每个位置只汇聚自身及之前的信息。
    """
    raise NotImplementedError("exercise causal_attention: implement run_causal_attention")


def run_dropout(
    in_features: Float[mindspore.Tensor, "*shape"],
    p: float,
    training: bool = True,
    generator: Optional[int] = None,
) -> Float[mindspore.Tensor, "*shape"]:
    """Inverted dropout (seed 001 §3.5.2): zero each entry with probability p, scale survivors by 1/(1-p).

    Scaling the kept entries keeps the expected value of every entry equal to the input, so nothing
    needs to change at evaluation time, when dropout is the identity. The random numbers are drawn as
    `ops.UniformReal(seed=generator)(in_features.shape)` (uniform in [0, 1)); an entry is kept where that
    number is >= p. `mindspore.set_seed(generator)` followed by `ops.rand(...)` draws reproducibly too.

    Args:
        in_features: mindspore.Tensor of any shape `*shape` (seed 001 applies it to attention weights).
        p: drop probability, 0 <= p <= 1. p == 0 keeps everything; p == 1 gives all zeros.
        training: when False, return `in_features` unchanged: a copy, or the input itself as nn.Dropout
            returns it (so at p = 0).
        generator: optional int seed, 1 <= generator < 2**31, that the random draws come from: the same
            seed must give the same mask (MindSpore 2.10's random ops that take a mindspore.Generator have
            no CPU kernel, so the seed is passed instead).

    Returns:
        A mindspore.Tensor of shape `*shape` and the dtype of `in_features`: a new one while it drops anything.

    中文：反向缩放的 dropout：训练时以概率 p 置零，保留的元素乘以 1/(1-p)；推理时原样返回。generator 是一个整数种子。
    """
    raise NotImplementedError("exercise dropout: implement run_dropout")
