"""One kernel over key tiles, as in Triton's fused-attention tutorial before it split dQ out: each program holds
its dK and dV, computes D = rowsum(dO ∘ O) of every query tile it visits itself, and adds its share of dQ with
tl.atomic_add into a float32 buffer the launcher zeroes (copied to Q's dtype at the end). Every key tile walks
every query tile; the causal mask zeroes what a query may not see."""

import math
import os

import torch

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

DIAGNOSIS = None


@triton.jit
def _bwd(q_ptr, k_ptr, v_ptr, o_ptr, lse_ptr, do_ptr, dq_ptr, dk_ptr, dv_ptr, seq_q, seq_k, sm_scale,
         CAUSAL: tl.constexpr, HEAD: tl.constexpr, BM: tl.constexpr, BN: tl.constexpr):
    start_n, bh = tl.program_id(0), tl.program_id(1)
    q_ptr += bh * seq_q * HEAD
    o_ptr += bh * seq_q * HEAD
    do_ptr += bh * seq_q * HEAD
    dq_ptr += bh * seq_q * HEAD
    lse_ptr += bh * seq_q
    k_ptr += bh * seq_k * HEAD
    v_ptr += bh * seq_k * HEAD
    dk_ptr += bh * seq_k * HEAD
    dv_ptr += bh * seq_k * HEAD
    offs_n = start_n * BN + tl.arange(0, BN)
    offs_d = tl.arange(0, HEAD)
    mask_n = offs_n < seq_k
    k = tl.load(k_ptr + offs_n[:, None] * HEAD + offs_d[None, :], mask=mask_n[:, None], other=0.0).to(tl.float32)
    v = tl.load(v_ptr + offs_n[:, None] * HEAD + offs_d[None, :], mask=mask_n[:, None], other=0.0).to(tl.float32)
    dk = tl.zeros([BN, HEAD], dtype=tl.float32)
    dv = tl.zeros([BN, HEAD], dtype=tl.float32)
    for start_m in range(0, seq_q, BM):
        offs_m = start_m + tl.arange(0, BM)
        mask_m = offs_m < seq_q
        ptrs = offs_m[:, None] * HEAD + offs_d[None, :]
        q = tl.load(q_ptr + ptrs, mask=mask_m[:, None], other=0.0).to(tl.float32)
        o = tl.load(o_ptr + ptrs, mask=mask_m[:, None], other=0.0).to(tl.float32)
        do = tl.load(do_ptr + ptrs, mask=mask_m[:, None], other=0.0).to(tl.float32)
        lse = tl.load(lse_ptr + offs_m, mask=mask_m, other=0.0)
        delta = tl.sum(do * o, axis=1)
        qk = tl.dot(q, tl.trans(k), input_precision="ieee")
        valid = mask_m[:, None] & mask_n[None, :]
        if CAUSAL:
            valid = valid & (offs_n[None, :] <= offs_m[:, None] + (seq_k - seq_q))
        p = tl.where(valid, tl.exp(qk * sm_scale - lse[:, None]), 0.0)
        dv += tl.dot(tl.trans(p), do, input_precision="ieee")
        dp = tl.dot(do, tl.trans(v), input_precision="ieee")
        ds = p * (dp - delta[:, None]) * sm_scale
        dk += tl.dot(tl.trans(ds), q, input_precision="ieee")
        tl.atomic_add(dq_ptr + ptrs, tl.dot(ds, k, input_precision="ieee"), mask=mask_m[:, None])
    tl.store(dk_ptr + offs_n[:, None] * HEAD + offs_d[None, :], dk.to(dk_ptr.dtype.element_ty), mask=mask_n[:, None])
    tl.store(dv_ptr + offs_n[:, None] * HEAD + offs_d[None, :], dv.to(dv_ptr.dtype.element_ty), mask=mask_n[:, None])


def run_triton_flash_backward(Q, K, V, O, L, dO, is_causal=False):
    *lead, seq_q, head = Q.shape
    seq_k = K.shape[-2]
    q, o, do = (t.reshape(-1, seq_q, head).contiguous() for t in (Q, O, dO))
    k, v = (t.reshape(-1, seq_k, head).contiguous() for t in (K, V))
    lse = L.reshape(-1, seq_q).contiguous()
    dq = torch.zeros(q.shape, dtype=torch.float32, device=Q.device)
    dk, dv = torch.empty_like(k), torch.empty_like(v)
    _bwd[(triton.cdiv(seq_k, 16), q.shape[0])](q, k, v, o, lse, do, dq, dk, dv, seq_q, seq_k, 1.0 / math.sqrt(head),
                                               CAUSAL=is_causal, HEAD=head, BM=16, BN=16)
    return dq.to(Q.dtype).reshape(Q.shape), dk.reshape(K.shape), dv.reshape(V.shape)
