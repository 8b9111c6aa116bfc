"""einops.repeat for the kv heads ("... n s d -> ... (n g) s d", consecutive copies), computed in float64
and cast back to the input's dtype."""

import math

import torch
import torch.nn.functional as F
from einops import rearrange, repeat


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    x = in_features.double()
    group = num_heads // num_kv_heads
    q = rearrange(F.linear(x, q_proj_weight.double()), "... t (h d) -> ... h t d", h=num_heads)
    k = rearrange(F.linear(x, k_proj_weight.double()), "... s (n d) -> ... n s d", n=num_kv_heads)
    v = rearrange(F.linear(x, v_proj_weight.double()), "... s (n d) -> ... n s d", n=num_kv_heads)
    k = repeat(k, "... n s d -> ... (n g) s d", g=group)
    v = repeat(v, "... n s d -> ... (n g) s d", g=group)
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    t = x.shape[-2]
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool, device=x.device).tril(), float("-inf"))
    y = rearrange(torch.softmax(scores, dim=-1) @ v, "... h t d -> ... t (h d)")
    return F.linear(y, o_proj_weight.double()).to(in_features.dtype)
