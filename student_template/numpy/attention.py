# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Single-head attention in NumPy, built up in the order of seed 001 §3.3–3.5 and seed 004.

simple self-attention (no weights) -> scaled dot-product attention -> self-attention with trainable
projections -> the causal mask -> causal attention -> dropout. Every function that normalises scores goes
through run_softmax, and the attention variants all reduce to run_scaled_dot_product_attention.

NumPy promotes where torch does not: a matmul of bfloat16 (ml_dtypes) arrays gives float32, and a float32
array divided by a NumPy float64 scalar (`np.sqrt(d_k)`) becomes float64. Every function returns the
dtype it was given, so each ends with `.astype(<input>.dtype)`. np.einsum does not take bfloat16 arrays
("invalid data type for einsum"): an einsum solution computes in float32 and casts back.
"""

import math
from typing import Optional, Union

import numpy as np
from jaxtyping import Bool, Float

from .softmax import run_softmax




def run_simple_self_attention(inputs: Float[np.ndarray, "... seq d_in"]) -> Float[np.ndarray, "... seq d_in"]:
    """Weight-free self-attention, softmax(X Xᵀ) X (seed 001 §3.3.1–3.3.2).

    Every token is its own query, key and value: the score of token i for token j is the dot product
    x_i · x_j, each row of scores goes through softmax, and the context vector of token i is the
    weighted sum of all input vectors. No scaling, no mask, no trainable weights.

    Args:
        inputs: token embeddings X, a numpy.ndarray of shape (..., seq, d_in), any number of leading batch
            dimensions.

    Returns:
        Context vectors, a new numpy.ndarray of shape (..., seq, d_in) with the dtype of `inputs` (float32,
        float64 or ml_dtypes.bfloat16; a bfloat16 matmul gives float32 in NumPy: cast back).

    中文：无可训练权重的简单自注意力：注意力分数 X·Xᵀ，按行 softmax，再对输入加权求和；返回与输入 dtype 相同的数组。
    """
    raise NotImplementedError("exercise simple_self_attention: implement run_simple_self_attention")


def run_scaled_dot_product_attention(
    Q: Float[np.ndarray, "... queries d_k"],
    K: Float[np.ndarray, "... keys d_k"],
    V: Float[np.ndarray, "... keys d_v"],
    mask: Union[Bool[np.ndarray, "... queries keys"], Float[np.ndarray, "... queries keys"], None] = None,
) -> Float[np.ndarray, "... queries d_v"]:
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
        Attention output, a new numpy.ndarray of shape (..., queries, d_v) with the dtype of Q: for each
        query, the average of the value rows weighted by softmax over the keys.

    中文：缩放点积注意力 softmax(QKᵀ/√d_k)V；掩码为 False/0 的位置在 softmax 前置为 -inf；返回与 Q dtype 相同的数组。
    """
    raise NotImplementedError("exercise scaled_dot_product_attention: implement run_scaled_dot_product_attention")


def run_self_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[np.ndarray, "d_out d_in"],
    k_proj_weight: Float[np.ndarray, "d_out d_in"],
    v_proj_weight: Float[np.ndarray, "d_out d_in"],
    in_features: Float[np.ndarray, "... seq d_in"],
    q_proj_bias: Optional[Float[np.ndarray, "d_out"]] = None,
    k_proj_bias: Optional[Float[np.ndarray, "d_out"]] = None,
    v_proj_bias: Optional[Float[np.ndarray, "d_out"]] = None,
) -> Float[np.ndarray, "... seq d_out"]:
    """Self-attention with trainable query, key and value projections (seed 001 §3.4, SelfAttention_v2).

    queries = X W_qᵀ (+ b_q), keys = X W_kᵀ (+ b_k), values = X W_vᵀ (+ b_v), then
    softmax(queries keysᵀ / √d_out) values. Every token attends to every token (no mask).

    Args:
        d_in: size of each input embedding.
        d_out: size of each query, key and value vector (and of the output).
        q_proj_weight: query projection W_q, shape (d_out, d_in), torch.nn.Linear layout (out, in).
        k_proj_weight: key projection W_k, shape (d_out, d_in).
        v_proj_weight: value projection W_v, shape (d_out, d_in).
        in_features: input embeddings X, shape (..., seq, d_in).
        q_proj_bias: optional query bias, shape (d_out,).
        k_proj_bias: optional key bias, shape (d_out,).
        v_proj_bias: optional value bias, shape (d_out,).

    Returns:
        Context vectors, a new numpy.ndarray of shape (..., seq, d_out) with the dtype of `in_features`.

    中文：带可训练权重 W_q、W_k、W_v 的自注意力，分数除以 √d_out，不加掩码；返回与输入 dtype 相同的数组。
    """
    raise NotImplementedError("exercise self_attention: implement run_self_attention")


def run_causal_mask(seq_len: int, device: Optional[str] = None) -> Bool[np.ndarray, "seq_len seq_len"]:
    """The causal mask of seed 001 §3.5.1 and seed 000: which keys each query may attend to.

    Row i is a query position, column j a key position; entry (i, j) is True when j <= i (the token
    itself and earlier tokens) and False when j > i (future tokens). This is np.tril of a matrix of
    ones, as a bool array, in the convention of run_scaled_dot_product_attention (True = may attend).

    Args:
        seq_len: number of positions.
        device: where to create the mask; NumPy arrays always live on the CPU, so it is None and unused
            (the argument is kept so that the function is called as in the other frameworks).

    Returns:
        A numpy.ndarray of dtype bool and shape (seq_len, seq_len), lower triangle (diagonal included) True.

    中文：因果掩码：下三角（含对角线）为 True，第 i 个位置只能看到第 j <= i 个位置；返回 bool 类型的 numpy 数组。
    """
    raise NotImplementedError("exercise causal_mask: implement run_causal_mask")


def run_causal_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[np.ndarray, "d_out d_in"],
    k_proj_weight: Float[np.ndarray, "d_out d_in"],
    v_proj_weight: Float[np.ndarray, "d_out d_in"],
    in_features: Float[np.ndarray, "... seq d_in"],
    q_proj_bias: Optional[Float[np.ndarray, "d_out"]] = None,
    k_proj_bias: Optional[Float[np.ndarray, "d_out"]] = None,
    v_proj_bias: Optional[Float[np.ndarray, "d_out"]] = None,
) -> Float[np.ndarray, "... seq d_out"]:
    """Causal self-attention: run_self_attention where no token sees later tokens (seed 001 §3.5.3).

    Same projections and √d_out scaling as run_self_attention; scores of future positions are set to
    -inf before the softmax (run_causal_mask), so output row i depends only on tokens 0..i.
    No dropout (it is a separate exercise, run_dropout).

    Args:
        d_in: size of each input embedding.
        d_out: size of each query, key and value vector (and of the output).
        q_proj_weight: query projection W_q, shape (d_out, d_in), torch.nn.Linear layout (out, in).
        k_proj_weight: key projection W_k, shape (d_out, d_in).
        v_proj_weight: value projection W_v, shape (d_out, d_in).
        in_features: input embeddings X, shape (..., seq, d_in).
        q_proj_bias: optional query bias, shape (d_out,).
        k_proj_bias: optional key bias, shape (d_out,).
        v_proj_bias: optional value bias, shape (d_out,).

    Returns:
        Context vectors, a new numpy.ndarray of shape (..., seq, d_out) with the dtype of `in_features`.

    中文：因果注意力：在 softmax 之前用因果掩码屏蔽未来位置，每个位置只汇聚自身及之前的信息；
    返回与输入 dtype 相同的数组。
    """
    raise NotImplementedError("exercise causal_attention: implement run_causal_attention")


def run_dropout(
    in_features: Float[np.ndarray, "*shape"],
    p: float,
    training: bool = True,
    generator: Optional[np.random.Generator] = None,
) -> Float[np.ndarray, "*shape"]:
    """Inverted dropout (seed 001 §3.5.2): zero each entry with probability p, scale survivors by 1/(1-p).

    Scaling the kept entries keeps the expected value of every entry equal to the input, so nothing
    needs to change at evaluation time, when dropout is the identity. The random numbers are drawn as
    `generator.random(in_features.shape)` (uniform in [0, 1)); an entry is kept where that number is >= p.

    Args:
        in_features: numpy.ndarray of any shape `*shape` (seed 001 applies it to attention weights).
        p: drop probability, 0 <= p <= 1. p == 0 keeps everything; p == 1 gives all zeros.
        training: when False, return `in_features` unchanged: a copy, or the input itself (so at p = 0).
        generator: optional numpy.random.Generator (np.random.default_rng(seed)) that all random draws
            come from, for reproducibility; never NumPy's global np.random functions. When None, use a new
            np.random.default_rng().

    Returns:
        A numpy.ndarray of shape `*shape` and the dtype of `in_features`: a new one while it drops anything.

    中文：反向缩放的 dropout：训练时以概率 p 置零，保留的元素乘以 1/(1-p)；推理时返回输入的副本；随机数只从
    numpy.random.Generator 类型的 generator 抽取。
    """
    raise NotImplementedError("exercise dropout: implement run_dropout")
