"""cross_attention: known mistakes, one function per misconception id listed in spec/cross_attention.yaml,
taking run_cross_attention's arguments. Diagnosis runs them on a failing case's inputs and names the one
whose output the student's equals.
"""

import math

import torch
import torch.nn.functional as F


def _heads(x, num_heads):
    return x.unflatten(-1, (num_heads, -1)).transpose(-3, -2)  # (..., heads, seq, d_head)


def _project(weights, states, num_heads):
    return _heads(F.linear(states, weights), num_heads)


def _finish(weights_, values, o_proj_weight):
    out = (weights_ @ values).transpose(-3, -2).flatten(-2)  # (..., T_dec, d_model)
    return F.linear(out, o_proj_weight)


def _scores(d_model, num_heads, q_proj_weight, k_proj_weight, decoder_states, encoder_states, scale=None):
    q = _project(q_proj_weight, decoder_states, num_heads)
    k = _project(k_proj_weight, encoder_states, num_heads)
    return q @ k.transpose(-2, -1) / math.sqrt(scale or d_model // num_heads)  # (..., heads, T_dec, T_enc)


def _attention(d_model, num_heads, q_proj_weight, k_proj_weight, v_proj_weight, o_proj_weight, decoder_states,
               encoder_states, allowed, scale=None):
    """Cross-attention where `allowed` (broadcast to (..., heads, T_dec, T_enc)) says which keys count."""
    scores = _scores(d_model, num_heads, q_proj_weight, k_proj_weight, decoder_states, encoder_states, scale)
    if allowed is not None:
        scores = scores.masked_fill(~allowed, float("-inf"))
    values = _project(v_proj_weight, encoder_states, num_heads)
    return _finish(torch.softmax(scores, dim=-1), values, o_proj_weight)


def _weights_and_mask(kwargs):
    return {k: v for k, v in kwargs.items() if k != "encoder_padding_mask"}, kwargs["encoder_padding_mask"]


def padding_ignored(**kwargs):
    """No padding mask: the padding tokens are attended to like real ones."""
    rest, _ = _weights_and_mask(kwargs)
    return _attention(**rest, allowed=None)


def padding_inverted(**kwargs):
    """masked_fill(mask, -inf): the real tokens are hidden and only the padding is attended to."""
    rest, mask = _weights_and_mask(kwargs)
    return _attention(**rest, allowed=~mask[..., None, None, :])


def causal_mask_applied(**kwargs):
    """The decoder's causal mask (tril over (T_dec, T_enc)) on top of the padding mask."""
    rest, mask = _weights_and_mask(kwargs)
    t_dec, t_enc = rest["decoder_states"].shape[-2], rest["encoder_states"].shape[-2]
    causal = torch.ones(t_dec, t_enc, dtype=torch.bool, device=mask.device).tril()
    return _attention(**rest, allowed=causal & mask[..., None, None, :])


def self_attention_instead(**kwargs):
    """Keys and values from the decoder states (self-attention), so the padding mask cannot be applied."""
    rest, _ = _weights_and_mask(kwargs)
    return _attention(**{**rest, "encoder_states": rest["decoder_states"]}, allowed=None)


def padding_zeroed_after_softmax(**kwargs):
    """Softmax over every key, then the padding weights multiplied by 0 without renormalising the rows."""
    rest, mask = _weights_and_mask(kwargs)
    scores = _scores(rest["d_model"], rest["num_heads"], rest["q_proj_weight"], rest["k_proj_weight"],
                     rest["decoder_states"], rest["encoder_states"])
    weights = torch.softmax(scores, dim=-1) * mask[..., None, None, :].to(scores.dtype)
    values = _project(rest["v_proj_weight"], rest["encoder_states"], rest["num_heads"])
    return _finish(weights, values, rest["o_proj_weight"])


def padding_scores_zero(**kwargs):
    """masked_fill(~mask, 0.0) on the scores: a score of 0 still gets weight exp(0) after the softmax."""
    rest, mask = _weights_and_mask(kwargs)
    scores = _scores(rest["d_model"], rest["num_heads"], rest["q_proj_weight"], rest["k_proj_weight"],
                     rest["decoder_states"], rest["encoder_states"])
    scores = scores.masked_fill(~mask[..., None, None, :], 0.0)
    values = _project(rest["v_proj_weight"], rest["encoder_states"], rest["num_heads"])
    return _finish(torch.softmax(scores, dim=-1), values, rest["o_proj_weight"])


def scale_by_d_model(**kwargs):
    """Scores divided by √d_model instead of √d_head."""
    rest, mask = _weights_and_mask(kwargs)
    return _attention(**rest, allowed=mask[..., None, None, :], scale=rest["d_model"])


def mask_on_wrong_axis(**kwargs):
    """mask.unsqueeze(-2) (one new axis): (..., 1, T_enc) lines the batch axis up with the head axis."""
    rest, mask = _weights_and_mask(kwargs)
    return _attention(**rest, allowed=mask[..., None, :])
