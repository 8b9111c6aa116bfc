"""Reuses the self-attention exercise unchanged and forgets the causal mask: every token sees the future."""

from reference.attention import run_self_attention

DIAGNOSIS = "no_causal_mask"


def run_causal_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                         q_proj_bias=None, k_proj_bias=None, v_proj_bias=None):
    return run_self_attention(d_in, d_out, q_proj_weight, k_proj_weight, v_proj_weight, in_features,
                              q_proj_bias, k_proj_bias, v_proj_bias)
