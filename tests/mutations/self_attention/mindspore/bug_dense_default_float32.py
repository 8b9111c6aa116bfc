"""nn.Dense is float32 unless told otherwise: the student loads the given weights with set_data (which casts
them to the parameter's float32) and never passes dtype=, so float16 and float64 inputs meet float32
weights and the matmul refuses them."""

from mindspore import nn, ops

DIAGNOSIS = None


def _dense(d_in, d_out, weight, bias):
    layer = nn.Dense(d_in, d_out, has_bias=bias is not None)
    layer.weight.set_data(weight)
    if bias is not None:
        layer.bias.set_data(bias)
    return layer


def run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                       q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    queries = _dense(d_in, d_out, q_proj_weight, q_proj_bias)(in_features)
    keys = _dense(d_in, d_out, k_proj_weight, k_proj_bias)(in_features)
    values = _dense(d_in, d_out, v_proj_weight, v_proj_bias)(in_features)
    attn_scores = ops.matmul(queries, keys.swapaxes(-2, -1))
    attn_weights = nn.Softmax(axis=-1)(attn_scores / d_out ** 0.5)
    return ops.matmul(attn_weights, values)
