"""einops: packs any leading dims into one batch axis for torch.bmm, fills forbidden scores with a finite
-1e9 instead of -inf, and unpacks the three results."""

import math

import torch
from einops import pack, unpack


def run_kv_cache_attention(Q, K, V, k_cache, v_cache):
    q, ps = pack([Q], "* t d")  # (batch, t_new, d), batch = every leading dim
    k, _ = pack([torch.cat([k_cache, K], dim=-2)], "* t d")
    v, _ = pack([torch.cat([v_cache, V], dim=-2)], "* t d")
    t_past = k_cache.shape[-2]
    i = torch.arange(q.shape[1], device=q.device)[:, None] + t_past
    j = torch.arange(k.shape[1], device=q.device)[None, :]
    scores = torch.bmm(q, k.transpose(1, 2)) / math.sqrt(q.shape[-1])
    scores = torch.where(j <= i, scores, torch.tensor(-1e9, dtype=scores.dtype, device=scores.device))
    out = torch.bmm(torch.softmax(scores, dim=-1), v)
    [out] = unpack(out, ps, "* t d")
    [k] = unpack(k, ps, "* t d")
    [v] = unpack(v, ps, "* t d")
    return out, k, v
