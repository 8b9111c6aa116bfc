"""The way the CUDA kernels write it: scores pre-multiplied by log2(e)/√d so that exp2 replaces exp, the
statistics as 1-D vectors, O and L preallocated and filled tile by tile; L converted back with ln 2."""

import math

import torch

LOG2E = 1.4426950408889634


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    acc_dtype = torch.float32 if Q.dtype in (torch.bfloat16, torch.float16) else Q.dtype
    *batch, T_q, d = Q.shape
    T_k = K.shape[-2]
    O = torch.empty(*batch, T_q, V.shape[-1], dtype=Q.dtype, device=Q.device)
    L = torch.empty(*batch, T_q, dtype=torch.float32, device=Q.device)
    c = LOG2E / math.sqrt(d)
    shift = T_k - T_q
    for q0 in range(0, T_q, block_q):
        q1 = min(q0 + block_q, T_q)
        q = Q[..., q0:q1, :].to(acc_dtype) * c
        m = torch.full((*batch, q1 - q0), -torch.inf, dtype=acc_dtype, device=Q.device)
        l = torch.zeros_like(m)
        acc = torch.zeros(*batch, q1 - q0, V.shape[-1], dtype=acc_dtype, device=Q.device)
        k_end = min(T_k, q1 + shift) if is_causal else T_k
        for k0 in range(0, k_end, block_k):
            k1 = min(k0 + block_k, T_k)
            s = torch.matmul(q, K[..., k0:k1, :].to(acc_dtype).transpose(-1, -2))  # log2 units
            if is_causal and k1 - 1 > q0 + shift:  # only tiles crossing the diagonal need a mask
                pos_q = torch.arange(q0, q1, device=Q.device).view(-1, 1) + shift
                pos_k = torch.arange(k0, k1, device=Q.device).view(1, -1)
                s = torch.where(pos_k <= pos_q, s, -torch.inf)
            m_new = torch.maximum(m, s.amax(dim=-1))
            p = torch.exp2(s - m_new.unsqueeze(-1))
            alpha = torch.exp2(m - m_new)
            l = alpha * l + p.sum(dim=-1)
            acc = alpha.unsqueeze(-1) * acc + torch.matmul(p, V[..., k0:k1, :].to(acc_dtype))
            m = m_new
        O[..., q0:q1, :] = (acc / l.unsqueeze(-1)).to(Q.dtype)
        L[..., q0:q1] = ((m + torch.log2(l)) * math.log(2)).float()
    return O, L
