"""Rescales the running sum when the max grows but forgets the accumulator: acc keeps terms measured
against an older, smaller max, so early tiles weigh too much whenever a later tile raises the max."""

import math

import torch

DIAGNOSIS = "accumulator_not_rescaled"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    scale = 1 / math.sqrt(Q.shape[-1])
    n, n_k = Q.shape[-2], K.shape[-2]
    shift = n_k - n
    O_rows, L_rows = [], []
    for i in range(0, n, block_q):
        q = Q[..., i:i + block_q, :].float()
        m = torch.full(q.shape[:-1], -float("inf"))
        l = torch.zeros(q.shape[:-1])
        acc = torch.zeros(*q.shape[:-1], V.shape[-1])
        end = min(n_k, i + q.shape[-2] + shift) if is_causal else n_k
        for j in range(0, end, block_k):
            s = q @ K[..., j:j + block_k, :].float().transpose(-1, -2) * scale
            if is_causal:
                qi = torch.arange(i, i + q.shape[-2]) + shift
                kj = torch.arange(j, j + s.shape[-1])
                s = s.masked_fill(kj[None, :] > qi[:, None], -float("inf"))
            m_new = torch.maximum(m, s.max(dim=-1).values)
            p = torch.exp(s - m_new[..., None])
            l = l * torch.exp(m - m_new) + p.sum(dim=-1)
            acc = acc + p @ V[..., j:j + block_k, :].float()  # should be acc * exp(m - m_new) + ...
            m = m_new
        O_rows.append(acc / l[..., None])
        L_rows.append(m + torch.log(l))
    return torch.cat(O_rows, dim=-2).to(Q.dtype), torch.cat(L_rows, dim=-1)
