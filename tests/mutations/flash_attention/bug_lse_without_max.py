"""O is right, but L is returned as log(l): l summed exp(s − m), so the max m must be added back."""

import math

import torch

DIAGNOSIS = "lse_without_max"


def run_flash_attention(Q, K, V, is_causal=False, block_q=16, block_k=16):
    dtype = torch.promote_types(Q.dtype, torch.float32)
    Q, K, V, out_dtype = Q.to(dtype), K.to(dtype), V.to(dtype), Q.dtype
    T_q, T_k = Q.shape[-2], K.shape[-2]
    O, L = [], []
    for start in range(0, T_q, block_q):
        q = Q[..., start:start + block_q, :]
        last = start + q.shape[-2] - 1 + (T_k - T_q)  # position of the tile's last query
        m = torch.full(q.shape[:-1] + (1,), -math.inf, dtype=dtype)
        l = torch.zeros_like(m)
        acc = torch.zeros(q.shape[:-1] + (V.shape[-1],), dtype=dtype)
        for k0 in range(0, T_k, block_k):
            if is_causal and k0 > last:
                break
            s = torch.matmul(q, K[..., k0:k0 + block_k, :].mT) / math.sqrt(q.shape[-1])
            if is_causal:
                qpos = torch.arange(q.shape[-2]).unsqueeze(1) + start + (T_k - T_q)
                kpos = torch.arange(s.shape[-1]).unsqueeze(0) + k0
                s = s.masked_fill(kpos > qpos, -math.inf)
            new_m = torch.maximum(m, s.amax(-1, keepdim=True))
            alpha = torch.exp(m - new_m)
            p = torch.exp(s - new_m)
            l = alpha * l + p.sum(-1, keepdim=True)
            acc = alpha * acc + p @ V[..., k0:k0 + block_k, :]
            m = new_m
        O.append(acc / l)
        L.append(torch.log(l).squeeze(-1))  # forgot + m
    return torch.cat(O, -2).to(out_dtype), torch.cat(L, -1).float()
