"""Uses the most negative finite float instead of -inf, both for masked scores and for the initial max,
so no inf ever enters the arithmetic: exp(min − m) is exactly 0 once a real score has been seen."""

import math

import torch


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    dtype = torch.promote_types(Q.dtype, torch.float32)
    low = torch.finfo(dtype).min
    q_len, k_len = Q.shape[-2], K.shape[-2]
    past = k_len - q_len if is_causal else 0
    outs, lses = [], []
    for a in range(0, q_len, block_q):
        q = Q[..., a:a + block_q, :].to(dtype)
        m = torch.full((*q.shape[:-1], 1), low, dtype=dtype, device=Q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros((*q.shape[:-1], V.shape[-1]), dtype=dtype, device=Q.device)
        for b in range(0, k_len, block_k):
            if is_causal and b > a + past + q.shape[-2] - 1:
                break
            s = (q @ K[..., b:b + block_k, :].to(dtype).mT) / math.sqrt(Q.shape[-1])
            if is_causal:
                ok = torch.arange(b, b + s.shape[-1], device=Q.device) <= (
                    torch.arange(a, a + s.shape[-2], device=Q.device)[:, None] + past)
                s = torch.where(ok, s, low)
            m_next = torch.maximum(m, s.max(-1, keepdim=True).values)
            p = torch.exp(s - m_next)
            corr = torch.exp(m - m_next)
            l = corr * l + p.sum(-1, keepdim=True)
            acc = corr * acc + p @ V[..., b:b + block_k, :].to(dtype)
            m = m_next
        outs.append(acc / l)
        lses.append(torch.squeeze(m + torch.log(l), -1))
    return torch.cat(outs, -2).to(Q.dtype), torch.cat(lses, -1).to(torch.float32)
