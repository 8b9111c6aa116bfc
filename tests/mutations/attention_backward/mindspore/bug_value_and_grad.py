"""Writes the forward pass and lets MindSpore differentiate it: mindspore.value_and_grad with sens (the
output gradient dO) through grad_position=(0, 1, 2). The values would be right; the exercise forbids
autodiff, and the guard says so."""

import math

import mindspore
from mindspore import nn, ops

DIAGNOSIS = None


def run_attention_backward(Q, K, V, dO, is_causal=False):
    n_q, n_k = Q.shape[-2], K.shape[-2]

    def forward(q, k, v):
        s = ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(q.shape[-1])
        if is_causal:
            s = ops.masked_fill(s, ~ops.tril(ops.ones((n_q, n_k), mindspore.bool_), diagonal=n_k - n_q),
                                float("-inf"))
        return ops.matmul(nn.Softmax(axis=-1)(s), v)

    loss = lambda q, k, v: (forward(q, k, v) * dO).sum()  # noqa: E731
    _, (dQ, dK, dV) = mindspore.value_and_grad(loss, grad_position=(0, 1, 2))(Q, K, V)
    return dQ, dK, dV
