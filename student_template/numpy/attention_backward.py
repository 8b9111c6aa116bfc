# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""The backward pass of attention by hand, in NumPy: the gradients of softmax(Q Kᵀ / √d_k) V with respect
to Q, K and V, given the gradient dO of the output (FlashAttention-2's backward, without the tiles).

Forward:  S = Q Kᵀ / √d_k,  P = softmax(S) row by row,  O = P V.
Backward, from the last step to the first:
    dV = Pᵀ dO                       O = P V is linear in V
    dP = dO Vᵀ                       ... and in P
    dS = P ∘ (dP − D),  D = rowsum(dO ∘ O) = rowsum(P ∘ dP)
                                     the softmax's Jacobian diag(p) − p pᵀ applied to each row of dP
    dQ = dS K / √d_k,  dK = dSᵀ Q / √d_k
                                     S = Q Kᵀ / √d_k is linear in Q and in K
Masked scores have P = 0, so their dS is 0. With is_causal the queries are the last positions of the keys'
sequence, as in run_flash_attention. NumPy has no autograd: this is how a NumPy course computes gradients.
"""

import math

import numpy as np
from jaxtyping import Float


def run_attention_backward(
    Q: Float[np.ndarray, "... queries d_k"],
    K: Float[np.ndarray, "... keys d_k"],
    V: Float[np.ndarray, "... keys d_v"],
    dO: Float[np.ndarray, "... queries d_v"],
    is_causal: bool = False,
) -> tuple[Float[np.ndarray, "... queries d_k"], Float[np.ndarray, "... keys d_k"],
           Float[np.ndarray, "... keys d_v"]]:
    """dQ, dK, dV of O = softmax(Q Kᵀ / √d_k) V for the output gradient dO.

    Args:
        Q: queries, shape (..., queries, d_k).
        K: keys, shape (..., keys, d_k).
        V: values, shape (..., keys, d_v); d_v may differ from d_k.
        dO: gradient of the loss with respect to the output O, shape (..., queries, d_v).
        is_causal: if True, query i attends only to keys j ≤ keys − queries + i (the queries are the last
            positions; with as many queries as keys, j ≤ i). Needs keys ≥ queries.

    Returns:
        dQ (..., queries, d_k), dK (..., keys, d_k), dV (..., keys, d_v): numpy.ndarrays with the dtype of
        Q, K and V respectively. Everything is computed in at least float32 (bfloat16 inputs from
        ml_dtypes: float32 inside), then cast back.

    中文：用 NumPy 手写注意力的反向传播：dV = Pᵀ dO，dP = dO Vᵀ，dS = P ∘ (dP − rowsum(dO ∘ O))，
    dQ = dS K / √d_k，dK = dSᵀ Q / √d_k；返回与各自输入 dtype 相同的数组。
    """
    raise NotImplementedError("exercise attention_backward: implement run_attention_backward")


