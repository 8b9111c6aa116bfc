"""A loop over heads with a hand-written masked softmax: per head the rows of W_q, W_k, W_v that belong to it
(`weight[h * d_head:(h + 1) * d_head]`), the row maximum taken over the real keys only (padding scores
replaced by -inf with `ops.where`), exp of the shifted scores multiplied by the 0/1 mask, divided by their
sum; heads joined with `ops.cat` and projected with `ops.matmul(..., W_o.T)`. Correct: multiplying by the mask
makes every padding weight exactly 0 and the sum runs over real keys only, which is the masked softmax; the
mask gets an axis for the decoder positions (`expand_dims(-2)`)."""

import math

from mindspore import ops


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    d_head = d_model // num_heads
    real = encoder_padding_mask.expand_dims(-2)  # (..., 1, T_enc)
    keep = real.astype(decoder_states.dtype)
    heads = []
    for h in range(num_heads):
        rows = slice(h * d_head, (h + 1) * d_head)
        q = ops.matmul(decoder_states, q_proj_weight[rows].T)  # (..., T_dec, d_head)
        k = ops.matmul(encoder_states, k_proj_weight[rows].T)  # (..., T_enc, d_head)
        v = ops.matmul(encoder_states, v_proj_weight[rows].T)
        scores = ops.matmul(q, k.swapaxes(-2, -1)) / math.sqrt(d_head)  # (..., T_dec, T_enc)
        row_max = ops.where(real, scores, float("-inf")).max(axis=-1, keepdims=True)
        exps = ops.exp(ops.where(real, scores - row_max, 0.0)) * keep
        heads.append(ops.matmul(exps / exps.sum(axis=-1, keepdims=True), v))
    return ops.matmul(ops.cat(heads, axis=-1), o_proj_weight.T)
