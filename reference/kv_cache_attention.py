"""Attention with a key-value cache: how a decoder generates one token after another without recomputing
the past.

At step t a causal decoder needs the keys and values of every earlier token. Instead of projecting the
whole prefix again, it keeps them in a cache: each call attends with the newest tokens' queries to the
cached keys and values plus the new ones, and returns the cache extended by the new keys and values for
the next call. A prompt may be fed all at once (prefill, the cache empty), in chunks, or one token at a
time; every way gives the same outputs as one causal pass over the whole sequence.
"""

import math

import torch
from jaxtyping import Float
from torch import Tensor


# BEGIN SOLUTION
def _cache_causal_mask(t_past: int, t_new: int, device: torch.device) -> Tensor:
    """(t_new, t_past + t_new), True where new token i may attend: every cached key, and new keys j <= i.

    New token i sits at absolute position t_past + i, so the causal diagonal is shifted right by t_past.
    """
    query_pos = torch.arange(t_past, t_past + t_new, device=device)  # (t_new,) absolute positions
    key_pos = torch.arange(t_past + t_new, device=device)  # (t_past + t_new,)
    return key_pos[None, :] <= query_pos[:, None]  # (t_new, t_past + t_new)


def _attend(q: Tensor, k: Tensor, v: Tensor, allowed: Tensor) -> Tensor:
    """softmax(q kᵀ / √d_k + mask) v over the last two axes (d_k: q's last axis)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., t_new, t_total)
    scores = scores.masked_fill(~allowed, float("-inf"))  # every row keeps at least its own key
    return torch.softmax(scores, dim=-1) @ v  # (..., t_new, d_v)
# END SOLUTION


def run_kv_cache_attention(
    Q: Float[Tensor, "... t_new d_k"],
    K: Float[Tensor, "... t_new d_k"],
    V: Float[Tensor, "... t_new d_v"],
    k_cache: Float[Tensor, "... t_past d_k"],
    v_cache: Float[Tensor, "... t_past d_v"],
) -> tuple[
    Float[Tensor, "... t_new d_v"],
    Float[Tensor, "... t_past+t_new d_k"],
    Float[Tensor, "... t_past+t_new d_v"],
]:
    """Causal attention of the newest tokens over a key-value cache; returns the output and both caches extended.

    New token i is at absolute position t_past + i. It attends to every cached key (positions
    0 .. t_past - 1) and to the new keys j <= i, with scores q·k / √d_k and a softmax over those keys.
    The new caches are torch.cat([k_cache, K], dim=-2) and torch.cat([v_cache, V], dim=-2): new tensors,
    the arguments are never modified. An empty cache (t_past = 0) makes this plain causal attention.

    Args:
        Q: queries of the new tokens, shape (..., t_new, d_k), t_new >= 1.
        K: keys of the new tokens, shape (..., t_new, d_k).
        V: values of the new tokens, shape (..., t_new, d_v); d_v may differ from d_k.
        k_cache: keys of the t_past earlier tokens, shape (..., t_past, d_k), t_past >= 0.
        v_cache: values of the t_past earlier tokens, shape (..., t_past, d_v).

    Returns:
        (output, new_k_cache, new_v_cache): output (..., t_new, d_v) and the caches (..., t_past + t_new, d_k or d_v),
        all in the dtype and on the device of Q.

    中文：带 KV 缓存的因果注意力：第 i 个新词元位于绝对位置 t_past + i，可以关注所有缓存的键以及 j <= i 的新键；
    返回输出以及在序列维上追加了 K、V 的新缓存（新张量，不原地修改参数）。
    """
    # BEGIN SOLUTION
    new_k_cache = torch.cat([k_cache, K], dim=-2)  # (..., t_past + t_new, d_k): positions in order
    new_v_cache = torch.cat([v_cache, V], dim=-2)  # (..., t_past + t_new, d_v)
    allowed = _cache_causal_mask(k_cache.shape[-2], Q.shape[-2], Q.device)  # (t_new, t_past + t_new)
    output = _attend(Q, new_k_cache, new_v_cache, allowed)  # (..., t_new, d_v)
    return output, new_k_cache, new_v_cache
    # END SOLUTION
