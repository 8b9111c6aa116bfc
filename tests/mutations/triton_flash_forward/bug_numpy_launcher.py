"""Avoids torch arithmetic by computing in NumPy and wrapping the result back into tensors: no Triton kernel
is ever launched, so this gets no points."""

import numpy as np
import torch

DIAGNOSIS = None


def run_triton_flash_forward(Q, K, V, is_causal=False):
    q, k, v = (t.detach().cpu().numpy().astype(np.float64) for t in (Q, K, V))
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if is_causal:
        n_q, n_k = s.shape[-2:]
        s = np.where(np.tril(np.ones((n_q, n_k), dtype=bool), k=n_k - n_q), s, -np.inf)
    m = s.max(axis=-1, keepdims=True)
    p = np.exp(s - m)
    lse = (m + np.log(p.sum(axis=-1, keepdims=True)))[..., 0]
    out = p @ v / p.sum(axis=-1, keepdims=True)
    return torch.from_numpy(out.astype(np.float32)).to(Q.dtype), torch.from_numpy(lse.astype(np.float32))
