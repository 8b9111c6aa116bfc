# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""The backward pass of attention in MindSpore, by hand: the gradients of softmax(Q Kᵀ / √d_k) V with respect to
Q, K and V, given the gradient dO of the output (FlashAttention-2's backward, without the tiles).

Forward:  S = Q Kᵀ / √d_k,  P = softmax(S) row by row,  O = P V.
Backward, from the last step to the first:
    dV = Pᵀ dO                       O = P V is linear in V
    dP = dO Vᵀ                       ... and in P
    dS = P ∘ (dP − D),  D = rowsum(dO ∘ O) = rowsum(P ∘ dP)
                                     the softmax's Jacobian diag(p) − p pᵀ applied to each row of dP
    dQ = dS K / √d_k,  dK = dSᵀ Q / √d_k
                                     S = Q Kᵀ / √d_k is linear in Q and in K
Masked scores have P = 0, so their dS is 0 and the mask needs no gradient rule of its own. With is_causal
the queries are the last positions of the keys' sequence, as in run_flash_attention. MindSpore's autodiff
(mindspore.grad, value_and_grad, vjp, ops.GradOperation) is what this exercise writes by hand.
"""

import math

import mindspore
from jaxtyping import Float
from mindspore import ops


def run_attention_backward(
    Q: Float[mindspore.Tensor, "... queries d_k"],
    K: Float[mindspore.Tensor, "... keys d_k"],
    V: Float[mindspore.Tensor, "... keys d_v"],
    dO: Float[mindspore.Tensor, "... queries d_v"],
    is_causal: bool = False,
) -> tuple[Float[mindspore.Tensor, "... queries d_k"], Float[mindspore.Tensor, "... keys d_k"],
           Float[mindspore.Tensor, "... keys d_v"]]:
    """dQ, dK, dV of O = softmax(Q Kᵀ / √d_k) V for the output gradient dO, computed without autodiff.

    Args:
        Q: queries, a mindspore.Tensor of shape (..., queries, d_k).
        K: keys, shape (..., keys, d_k).
        V: values, shape (..., keys, d_v); d_v may differ from d_k.
        dO: gradient of the loss with respect to the output O, shape (..., queries, d_v).
        is_causal: if True, query i attends only to keys j ≤ keys − queries + i (the queries are the last
            positions; with as many queries as keys, j ≤ i). Needs keys ≥ queries.

    Returns:
        dQ (..., queries, d_k), dK (..., keys, d_k), dV (..., keys, d_v), each with the dtype of Q, K and V
        respectively. Everything is computed in float32 or float64 (float16 inputs: float32 inside, as
        FlashAttention's backward does), then cast back; MindSpore has no bfloat16 CPU kernels, so bfloat16
        cases are not graded in MindSpore.

    中文：手写注意力的反向传播（禁止使用 mindspore.grad 等自动微分）：dV = Pᵀ dO，dP = dO Vᵀ，
    dS = P ∘ (dP − rowsum(dO ∘ O))，dQ = dS K / √d_k，dK = dSᵀ Q / √d_k。
    """
    raise NotImplementedError("exercise attention_backward: implement run_attention_backward")


