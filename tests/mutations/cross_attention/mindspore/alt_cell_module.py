"""A CrossAttention cell in seed 001 §3.6.2's style: nn.Dense layers (no bias) in the decoder's dtype loaded
with the given weights, construct written for a 3-D batch (`b, num_tokens, d = x.shape`, `ops.reshape` and
`ops.transpose` with (0, 2, 1, 3)), the padding mask reshaped to (b, 1, 1, T_enc) so it broadcasts over heads
and decoder positions, `ops.masked_fill` with -inf where it is False, nn.Softmax(axis=-1). The run function
flattens any leading dims into b (one row of the mask per sequence). Correct: queries from the decoder, keys
and values from the encoder, no causal mask, scale √head_dim, and padding gets weight exactly 0."""

from mindspore import nn, ops


class CrossAttention(nn.Cell):
    def __init__(self, d_model, num_heads, dtype):
        super().__init__()
        self.num_heads, self.head_dim, self.d_model = num_heads, d_model // num_heads, d_model
        self.W_query = nn.Dense(d_model, d_model, has_bias=False, dtype=dtype)
        self.W_key = nn.Dense(d_model, d_model, has_bias=False, dtype=dtype)
        self.W_value = nn.Dense(d_model, d_model, has_bias=False, dtype=dtype)
        self.out_proj = nn.Dense(d_model, d_model, has_bias=False, dtype=dtype)

    def heads(self, x):
        b, num_tokens, _ = x.shape
        return ops.transpose(ops.reshape(x, (b, num_tokens, self.num_heads, self.head_dim)), (0, 2, 1, 3))

    def construct(self, decoder, encoder, padding_mask):
        b, t_dec, _ = decoder.shape
        queries = self.heads(self.W_query(decoder))  # (b, h, T_dec, hd)
        keys = self.heads(self.W_key(encoder))  # (b, h, T_enc, hd)
        values = self.heads(self.W_value(encoder))
        attn_scores = ops.matmul(queries, ops.transpose(keys, (0, 1, 3, 2))) / self.head_dim**0.5
        padding = ops.logical_not(padding_mask).reshape(b, 1, 1, -1)  # (b, 1, 1, T_enc)
        attn_weights = nn.Softmax(axis=-1)(ops.masked_fill(attn_scores, padding, float("-inf")))
        context = ops.transpose(ops.matmul(attn_weights, values), (0, 2, 1, 3)).reshape(b, t_dec, self.d_model)
        return self.out_proj(context)


def run_cross_attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight,
                        decoder_states, encoder_states, encoder_padding_mask):
    *batch, t_dec, _ = decoder_states.shape
    attention = CrossAttention(d_model, num_heads, decoder_states.dtype)
    for layer, weight in ((attention.W_query, q_proj_weight), (attention.W_key, k_proj_weight),
                          (attention.W_value, v_proj_weight), (attention.out_proj, o_proj_weight)):
        layer.weight.set_data(weight)
    out = attention(decoder_states.reshape(-1, t_dec, d_model),
                    encoder_states.reshape(-1, encoder_states.shape[-2], d_model),
                    encoder_padding_mask.reshape(-1, encoder_padding_mask.shape[-1]))
    return out.reshape(*batch, t_dec, d_model)
