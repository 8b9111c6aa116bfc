# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Softmax in JAX: turn a row of attention scores into weights that are positive and sum to 1.

Seed 001 §3.3.1 first normalises by the plain sum, then by `softmax_naive` (exp / sum exp), and notes that
the naive version overflows for large scores. The stable version below shifts every slice by its maximum
first; softmax(x) == softmax(x - c) for any constant c, so the result is unchanged but exp never sees a
large positive number.
"""

import jax
import jax.numpy as jnp
from jaxtyping import Float


def run_softmax(in_features: Float[jax.Array, "*shape"], dim: int) -> Float[jax.Array, "*shape"]:
    """Numerically stable softmax of `in_features` along `dim` (seed 001 §3.3.1, §3.3.2).

    Args:
        in_features: jax.Array of any shape `*shape`; each 1-D slice along `dim` is normalised on its own.
            Entries may be -inf (masked scores); they get weight 0. A slice that is entirely -inf has
            no defined softmax and gives NaN.
        dim: the axis to normalise over (negative values count from the end, e.g. -1 = last).

    Returns:
        A jax.Array of shape `*shape` and the dtype of `in_features` (float16, float32, float64 or
        bfloat16): exp(x - max) divided by its sum along `dim`. jax.nn.softmax is not allowed here.

    中文：数值稳定的 softmax——先沿 dim 减去最大值再取指数并归一化，每个切片之和为 1；返回与输入 dtype 相同的 jax.Array。
    """
    # Shifting by the maximum keeps exp's argument <= 0: no overflow, and the largest term is exp(0) = 1.
    shifted = in_features - jnp.max(in_features, axis=dim, keepdims=True)
    exponentials = jnp.exp(shifted)
    return exponentials / jnp.sum(exponentials, axis=dim, keepdims=True)
