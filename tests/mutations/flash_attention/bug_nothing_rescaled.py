"""Keeps the running max but never applies the correction exp(m_old − m_new): every tile's exp(s − m_new)
is added to sums that were taken against smaller, older maxima (the step a first online softmax forgets)."""

import math

import torch

DIAGNOSIS = "nothing_rescaled"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    q_len, k_len = Q.shape[-2], K.shape[-2]
    offset = k_len - q_len if is_causal else 0
    outs, lses = [], []
    for qs in range(0, q_len, block_q):
        q = Q[..., qs:qs + block_q, :].to(torch.float32)
        rows = q.shape[-2]
        m = torch.full((*q.shape[:-1], 1), float("-inf"))
        l = torch.zeros((*q.shape[:-1], 1))
        acc = torch.zeros((*q.shape[:-1], V.shape[-1]))
        for ks in range(0, k_len, block_k):
            if is_causal and ks > qs + offset + rows - 1:
                break
            s = q @ K[..., ks:ks + block_k, :].to(torch.float32).transpose(-2, -1) / math.sqrt(Q.shape[-1])
            if is_causal:
                pos_q = torch.arange(qs, qs + rows)[:, None] + offset
                pos_k = torch.arange(ks, ks + s.shape[-1])[None, :]
                s = torch.where(pos_k <= pos_q, s, float("-inf"))
            m = torch.maximum(m, s.amax(dim=-1, keepdim=True))
            p = torch.exp(s - m)
            l = l + p.sum(dim=-1, keepdim=True)
            acc = acc + p @ V[..., ks:ks + block_k, :].to(torch.float32)
        outs.append(acc / l)
        lses.append((m + torch.log(l))[..., 0])
    return torch.cat(outs, dim=-2).to(Q.dtype), torch.cat(lses, dim=-1)
