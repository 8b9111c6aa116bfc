"""Finds MindSpore's fused kernel, ops.flash_attention_score (which the exercise forbids), lets it compute O
with the layout its documentation shows, and computes L tile by tile. On the CPU the kernel would fail
anyway (it is built for Ascend); the guard says "forbidden" before it runs."""

import math

import mindspore
from mindspore import ops

DIAGNOSIS = None


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    n_q, n_k = Q.shape[-2], K.shape[-2]
    mask = None
    if is_causal:  # the kernel's mask marks what is hidden: the keys after each query's position
        mask = ~ops.tril(ops.ones((n_q, n_k), mindspore.bool_), diagonal=n_k - n_q)
    O = ops.flash_attention_score(Q, K, V, head_num=1, attn_mask=mask, scalar_value=1 / math.sqrt(Q.shape[-1]),
                                  input_layout="BSH")
    lses = []
    for start in range(0, n_q, block_q):
        s = ops.matmul(Q[..., start:start + block_q, :], K.swapaxes(-2, -1)) / math.sqrt(Q.shape[-1])
        if mask is not None:
            s = ops.masked_fill(s, mask[start:start + block_q], float("-inf"))
        lses.append(ops.logsumexp(s.astype(mindspore.float32), -1))
    return O, ops.cat(lses, axis=-1)
