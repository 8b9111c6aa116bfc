"""MLA as a MindSpore Cell with nn.Dense layers holding the given weights, one head at a time in a Python loop,
RoPE by rotating (even, odd) pairs with a complex-free cos/sin table."""

import math

import mindspore
from mindspore import nn, ops

DIAGNOSIS = None


def _dense(weight):
    d_out, d_in = weight.shape
    return nn.Dense(d_in, d_out, weight_init=weight, has_bias=False, dtype=weight.dtype)


class LatentAttention(nn.Cell):
    def __init__(self, num_heads, d_nope, d_rope, theta, q_w, down_w, up_w, o_w):
        super().__init__()
        self.num_heads, self.d_nope, self.d_rope, self.theta = num_heads, d_nope, d_rope, theta
        self.d_latent = up_w.shape[1]
        self.d_v = up_w.shape[0] // num_heads - d_nope
        self.q_proj, self.down, self.up, self.o_proj = _dense(q_w), _dense(down_w), _dense(up_w), _dense(o_w)

    def rotate(self, t, positions):
        half = ops.arange(0, self.d_rope, 2, dtype=t.dtype) / self.d_rope
        angles = positions.astype(t.dtype)[..., None] / ops.pow(self.theta, half)
        even, odd = t[..., 0::2], t[..., 1::2]
        out = ops.stack((even * ops.cos(angles) - odd * ops.sin(angles),
                         even * ops.sin(angles) + odd * ops.cos(angles)), axis=-1)
        return out.reshape(t.shape)

    def construct(self, x, positions):
        seq = x.shape[-2]
        q_all, down = self.q_proj(x), self.down(x)
        latent, k_rope = down[..., :self.d_latent], self.rotate(down[..., self.d_latent:], positions)
        up_all = self.up(latent)
        future = ~ops.tril(ops.ones((seq, seq), mindspore.bool_))
        width_q, width_up = self.d_nope + self.d_rope, self.d_nope + self.d_v
        outs = []
        for h in range(self.num_heads):
            q = q_all[..., h * width_q:(h + 1) * width_q]
            up = up_all[..., h * width_up:(h + 1) * width_up]
            q_nope, q_rope = q[..., :self.d_nope], self.rotate(q[..., self.d_nope:], positions)
            k_nope, v = up[..., :self.d_nope], up[..., self.d_nope:]
            scores = (ops.matmul(q_nope, k_nope.swapaxes(-2, -1)) + ops.matmul(q_rope, k_rope.swapaxes(-2, -1)))
            scores = ops.masked_fill(scores / math.sqrt(width_q), future, float("-inf"))
            outs.append(ops.matmul(ops.softmax(scores, axis=-1), v))
        return self.o_proj(ops.cat(outs, axis=-1))


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    positions = ops.arange(in_features.shape[-2]) if token_positions is None else token_positions
    cell = LatentAttention(num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                           kv_up_proj_weight, o_proj_weight)
    return cell(in_features, positions)
