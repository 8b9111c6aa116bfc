"""nanoGPT's CausalSelfAttention ported to MindSpore as a cell: `c_attn` and `c_proj` are nn.Dense layers in
the input's dtype loaded with the given weights and biases, construct splits c_attn's output with
`ops.split(..., n_embd, axis=2)`, `.view(B, T, nh, hs).transpose(1, 2)` per tensor (MindSpore's
Tensor.transpose with two axes swaps them, as torch's does), masks with a lower-triangular buffer
`== 0` -> -inf and merges with `.transpose(1, 2).view(B, T, C)`; the run function flattens the leading dims
into B. Correct: the head axis moves in front of T and back before the merge, the scale is 1/√hs."""

import math

import mindspore
from mindspore import nn, ops


class CausalSelfAttention(nn.Cell):
    def __init__(self, n_embd, n_head, block_size, dtype):
        super().__init__()
        self.c_attn = nn.Dense(n_embd, 3 * n_embd, has_bias=True, dtype=dtype)
        self.c_proj = nn.Dense(n_embd, n_embd, has_bias=True, dtype=dtype)
        self.n_head = n_head
        self.n_embd = n_embd
        self.bias = ops.tril(ops.ones((block_size, block_size), mindspore.float32)).view(1, 1, block_size, block_size)

    def construct(self, x):
        B, T, C = x.shape
        q, k, v = ops.split(self.c_attn(x), self.n_embd, axis=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
        att = ops.masked_fill(att, self.bias[:, :, :T, :T] == 0, float("-inf"))
        att = nn.Softmax(axis=-1)(att)
        y = att @ v  # (B, nh, T, hs)
        y = y.transpose(1, 2).view(B, T, C)
        return self.c_proj(y)


def run_gpt2_causal_self_attention(n_embd, n_head, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias,
                                   in_features):
    *batch, T, C = in_features.shape
    attn = CausalSelfAttention(n_embd, n_head, T, in_features.dtype)
    attn.c_attn.weight.set_data(c_attn_weight)
    attn.c_attn.bias.set_data(c_attn_bias)
    attn.c_proj.weight.set_data(c_proj_weight)
    attn.c_proj.bias.set_data(c_proj_bias)
    return attn(in_features.reshape(-1, T, C)).reshape(*batch, T, C)
