"""A tiled FlashAttention forward with knobs, one per known mistake; knobs at their defaults give the right
(O, L). It stays in tiles like the reference, so running it on the long case never holds the score matrix."""

import math

import torch


def flash(Q, K, V, is_causal, block_q, block_k, *, rescale_acc=True, rescale_sum=True, lse_with_max=True,
          skip_after="last_query", local_mask=False, top_left=False, full_key_tiles_only=False):
    """(O, L) of FlashAttention-2 with these slips:

    rescale_acc / rescale_sum: multiply acc / l by exp(m_old − m_new) when the running max grows.
    lse_with_max: L = m + log l (False: L = log l).
    skip_after: "last_query" visits key tiles up to the tile's last query position; "first_query" stops
        at its first query's position.
    local_mask: the causal mask of every visited tile is tril(ones(bq, bk)) in the tile's own indices.
    top_left: causal with query i at position i even when there are fewer queries than keys.
    full_key_tiles_only: range(0, keys - block_k + 1, block_k): a last, partial key tile is never visited.
    """
    work = torch.promote_types(Q.dtype, torch.float32)
    q, k, v = Q.to(work), K.to(work), V.to(work)
    n_q, n_k = q.shape[-2], k.shape[-2]
    offset = n_k - n_q if is_causal and not top_left else 0
    scale = 1.0 / math.sqrt(q.shape[-1])
    outputs, lses = [], []
    for q_start in range(0, n_q, block_q):
        q_tile = q[..., q_start:q_start + block_q, :]
        rows = q_tile.shape[-2]
        first = q_start + offset
        key_end = n_k
        if is_causal:
            key_end = min(n_k, first + (rows if skip_after == "last_query" else 1))
        stop = n_k - block_k + 1 if full_key_tiles_only else key_end
        m = torch.full((*q_tile.shape[:-1], 1), float("-inf"), dtype=work, device=q.device)
        total = torch.zeros_like(m)
        acc = torch.zeros((*q_tile.shape[:-1], v.shape[-1]), dtype=work, device=q.device)
        for k_start in range(0, min(stop, key_end), block_k):
            s = q_tile @ k[..., k_start:k_start + block_k, :].transpose(-2, -1) * scale
            if is_causal:
                r = torch.arange(s.shape[-2], device=s.device)[:, None] + (0 if local_mask else first)
                c = torch.arange(s.shape[-1], device=s.device)[None, :] + (0 if local_mask else k_start)
                s = s.masked_fill(c > r, float("-inf"))
            m_new = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m_new)
            factor = torch.exp(m - m_new)
            total = (total * factor if rescale_sum else total) + p.sum(dim=-1, keepdim=True)
            acc = (acc * factor if rescale_acc else acc) + p @ v[..., k_start:k_start + block_k, :]
            m = m_new
        outputs.append(acc / total)
        lses.append(((m if lse_with_max else 0) + torch.log(total)).squeeze(-1))
    return torch.cat(outputs, dim=-2).to(Q.dtype), torch.cat(lses, dim=-1).to(torch.float32)
