"""Single-head attention in JAX, built up in the order of seed 001 §3.3–3.5 and seed 004.

simple self-attention (no weights) -> scaled dot-product attention -> self-attention with trainable
projections -> the causal mask -> causal attention -> dropout. Every function that normalises scores goes
through run_softmax, and the attention variants all reduce to run_scaled_dot_product_attention.
Weights come in torch.nn.Linear's layout (out, in), so a projection is `x @ W.T + b`.
"""

import math
from typing import Optional

import jax
import jax.numpy as jnp
from jaxtyping import Bool, Float

from .softmax import run_softmax


# BEGIN SOLUTION
def _linear(x: jax.Array, weight: jax.Array, bias: Optional[jax.Array] = None) -> jax.Array:
    """x Wᵀ (+ b), W in (out, in) layout: (..., in) -> (..., out)."""
    y = x @ weight.T  # (..., out)
    return y if bias is None else y + bias
# END SOLUTION


def run_simple_self_attention(inputs: Float[jax.Array, "... seq d_in"]) -> Float[jax.Array, "... seq d_in"]:
    """Weight-free self-attention, softmax(X Xᵀ) X (seed 001 §3.3.1–3.3.2).

    Every token is its own query, key and value: the score of token i for token j is the dot product
    x_i · x_j, each row of scores goes through softmax, and the context vector of token i is the
    weighted sum of all input vectors. No scaling, no mask, no trainable weights.

    Args:
        inputs: token embeddings X, a jax.Array of shape (..., seq, d_in), any number of leading batch axes.

    Returns:
        Context vectors, shape (..., seq, d_in), dtype of `inputs`.

    中文：无可训练权重的简单自注意力：注意力分数 X·Xᵀ，按行 softmax，再对输入加权求和。
    """
    # BEGIN SOLUTION
    scores = inputs @ jnp.swapaxes(inputs, -2, -1)  # (..., seq, seq): scores[i, j] = x_i · x_j
    weights = run_softmax(scores, dim=-1)  # each row sums to 1
    return weights @ inputs  # (..., seq, d_in)
    # END SOLUTION


def run_scaled_dot_product_attention(
    Q: Float[jax.Array, "... queries d_k"],
    K: Float[jax.Array, "... keys d_k"],
    V: Float[jax.Array, "... keys d_v"],
    mask: Optional[Bool[jax.Array, "... queries keys"] | Float[jax.Array, "... queries keys"]] = None,
) -> Float[jax.Array, "... queries d_v"]:
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
        Attention output, shape (..., queries, d_v), dtype of Q: for each query, the average of the value
        rows weighted by softmax over the keys. jax.nn.dot_product_attention is not allowed here.

    中文：缩放点积注意力 softmax(QKᵀ/√d_k)V；掩码为 False/0 的位置在 softmax 前置为 -inf。
    """
    # BEGIN SOLUTION
    d_k = Q.shape[-1]
    # Dividing by sqrt(d_k) keeps the scores at unit variance when q and k have unit-variance entries.
    scores = Q @ jnp.swapaxes(K, -2, -1) / math.sqrt(d_k)  # (..., queries, keys)
    if mask is not None:
        allowed = mask.astype(bool)  # float masks: 1.0 -> True, 0.0 -> False
        scores = jnp.where(allowed, scores, -jnp.inf)
    weights = run_softmax(scores, dim=-1)  # (..., queries, keys), rows sum to 1
    return weights @ V  # (..., queries, d_v)
    # END SOLUTION


def run_self_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[jax.Array, "d_out d_in"],
    k_proj_weight: Float[jax.Array, "d_out d_in"],
    v_proj_weight: Float[jax.Array, "d_out d_in"],
    in_features: Float[jax.Array, "... seq d_in"],
    q_proj_bias: Optional[Float[jax.Array, "d_out"]] = None,
    k_proj_bias: Optional[Float[jax.Array, "d_out"]] = None,
    v_proj_bias: Optional[Float[jax.Array, "d_out"]] = None,
) -> Float[jax.Array, "... seq d_out"]:
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
        Context vectors, shape (..., seq, d_out), dtype of `in_features`.

    中文：带可训练权重 W_q、W_k、W_v 的自注意力，分数除以 √d_out，不加掩码。
    """
    # BEGIN SOLUTION
    queries = _linear(in_features, q_proj_weight, q_proj_bias)  # (..., seq, d_out)
    keys = _linear(in_features, k_proj_weight, k_proj_bias)  # (..., seq, d_out)
    values = _linear(in_features, v_proj_weight, v_proj_bias)  # (..., seq, d_out)
    return run_scaled_dot_product_attention(Q=queries, K=keys, V=values)
    # END SOLUTION


def run_causal_mask(seq_len: int, device: Optional[jax.Device] = None) -> Bool[jax.Array, "seq_len seq_len"]:
    """The causal mask of seed 001 §3.5.1 and seed 000: which keys each query may attend to.

    Row i is a query position, column j a key position; entry (i, j) is True when j <= i (the token
    itself and earlier tokens) and False when j > i (future tokens). This is jnp.tril of a matrix of
    ones, as a bool array, in the convention of run_scaled_dot_product_attention (True = may attend).

    Args:
        seq_len: number of positions.
        device: the jax.Device to create the mask on (None, as the grader passes it: JAX's default device).

    Returns:
        Bool jax.Array of shape (seq_len, seq_len), lower triangle (diagonal included) True.

    中文：因果掩码：下三角（含对角线）为 True，第 i 个位置只能看到第 j <= i 个位置。
    """
    # BEGIN SOLUTION
    ones = jnp.ones((seq_len, seq_len), dtype=bool, device=device)  # (seq, seq)
    return jnp.tril(ones)  # True where key <= query
    # END SOLUTION


def run_causal_attention(
    d_in: int,
    d_out: int,
    q_proj_weight: Float[jax.Array, "d_out d_in"],
    k_proj_weight: Float[jax.Array, "d_out d_in"],
    v_proj_weight: Float[jax.Array, "d_out d_in"],
    in_features: Float[jax.Array, "... seq d_in"],
    q_proj_bias: Optional[Float[jax.Array, "d_out"]] = None,
    k_proj_bias: Optional[Float[jax.Array, "d_out"]] = None,
    v_proj_bias: Optional[Float[jax.Array, "d_out"]] = None,
) -> Float[jax.Array, "... seq d_out"]:
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
        Context vectors, shape (..., seq, d_out), dtype of `in_features`.

    中文：因果注意力：在 softmax 之前用因果掩码屏蔽未来位置，每个位置只汇聚自身及之前的信息。
    """
    # BEGIN SOLUTION
    queries = _linear(in_features, q_proj_weight, q_proj_bias)  # (..., seq, d_out)
    keys = _linear(in_features, k_proj_weight, k_proj_bias)  # (..., seq, d_out)
    values = _linear(in_features, v_proj_weight, v_proj_bias)  # (..., seq, d_out)
    mask = run_causal_mask(in_features.shape[-2])  # (seq, seq)
    return run_scaled_dot_product_attention(Q=queries, K=keys, V=values, mask=mask)
    # END SOLUTION


def run_dropout(
    in_features: Float[jax.Array, "*shape"],
    p: float,
    training: bool = True,
    generator: Optional[jax.Array] = None,
) -> Float[jax.Array, "*shape"]:
    """Inverted dropout (seed 001 §3.5.2): zero each entry with probability p, scale survivors by 1/(1-p).

    Scaling the kept entries keeps the expected value of every entry equal to the input, so nothing
    needs to change at evaluation time, when dropout is the identity. JAX has no global random state:
    the random numbers come from the PRNG key `generator`, e.g. as Flax's Dropout draws them,
    `jax.random.bernoulli(generator, 1 - p, in_features.shape)` (True = keep), or with
    `jax.random.uniform(generator, in_features.shape)` kept where >= p. The same key gives the same mask.

    Args:
        in_features: jax.Array of any shape `*shape` (seed 001 applies it to attention weights).
        p: drop probability, 0 <= p <= 1. p == 0 keeps everything; p == 1 gives all zeros.
        training: when False, return `in_features` unchanged: a copy, or the input itself (so at p = 0).
        generator: a JAX PRNG key, as made by jax.random.key(seed) (the grader passes one); required while
            training with 0 < p < 1.

    Returns:
        A jax.Array of shape `*shape` and the dtype of `in_features`: a new one while it drops anything.

    中文：反向缩放的 dropout：训练时以概率 p 置零，保留的元素乘以 1/(1-p)；推理时原样返回。
    随机数来自 PRNG 密钥 generator（jax.random.key(seed)），同一个密钥给出同一个掩码。
    """
    # BEGIN SOLUTION
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability must be between 0 and 1, got {p}")
    if not training:
        return jnp.array(in_features)  # jnp.array copies
    if p == 1.0:
        return jnp.zeros_like(in_features)  # 1/(1-p) would be infinite
    if generator is None:
        raise ValueError("dropout while training needs a PRNG key: pass generator=jax.random.key(seed)")
    keep = jax.random.bernoulli(generator, 1.0 - p, in_features.shape)  # True with probability 1 - p
    return jnp.where(keep, in_features / (1.0 - p), 0.0)
    # END SOLUTION
