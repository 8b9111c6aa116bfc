"""CS336's handout style: tl.make_block_ptr tiles with .advance and boundary_check (what Triton 3.7.1's
interpreter runs), a float32 launcher (everything upcast, the gradients cast back), a preprocess kernel for
D = rowsum(O ∘ dO), then one kernel for dK and dV over key tiles and one for dQ over query tiles, each
walking every tile of the other side and masking the causal part."""

import math
import os

import torch

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

DIAGNOSIS = None


@triton.jit
def flash_bwd_preprocess(O_ptr, dO_ptr, D_ptr, stride_ob, stride_oq, stride_od, stride_db, stride_dq, N_QUERIES,
                         D: tl.constexpr, Q_TILE_SIZE: tl.constexpr):
    query_tile_index, batch_index = tl.program_id(0), tl.program_id(1)
    O_block_ptr = tl.make_block_ptr(O_ptr + batch_index * stride_ob, shape=(N_QUERIES, D), strides=(stride_oq, stride_od),
                                    offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    dO_block_ptr = tl.make_block_ptr(dO_ptr + batch_index * stride_ob, shape=(N_QUERIES, D), strides=(stride_oq, stride_od),
                                     offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    D_block_ptr = tl.make_block_ptr(D_ptr + batch_index * stride_db, shape=(N_QUERIES,), strides=(stride_dq,),
                                    offsets=(query_tile_index * Q_TILE_SIZE,), block_shape=(Q_TILE_SIZE,), order=(0,))
    o = tl.load(O_block_ptr, boundary_check=(0, 1), padding_option="zero")
    do = tl.load(dO_block_ptr, boundary_check=(0, 1), padding_option="zero")
    tl.store(D_block_ptr, tl.sum(o * do, axis=1), boundary_check=(0,))


@triton.jit
def flash_bwd_dkdv_kernel(Q_ptr, K_ptr, V_ptr, dO_ptr, L_ptr, D_ptr, dK_ptr, dV_ptr, stride_qb, stride_qq, stride_qd,
                          stride_kb, stride_kk, stride_kd, stride_lb, stride_lq, N_QUERIES, N_KEYS, scale,
                          D: tl.constexpr, Q_TILE_SIZE: tl.constexpr, K_TILE_SIZE: tl.constexpr,
                          is_causal: tl.constexpr):
    key_tile_index, batch_index = tl.program_id(0), tl.program_id(1)
    K_block_ptr = tl.make_block_ptr(K_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                    offsets=(key_tile_index * K_TILE_SIZE, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    V_block_ptr = tl.make_block_ptr(V_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                    offsets=(key_tile_index * K_TILE_SIZE, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    dK_block_ptr = tl.make_block_ptr(dK_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                     offsets=(key_tile_index * K_TILE_SIZE, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    dV_block_ptr = tl.make_block_ptr(dV_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                     offsets=(key_tile_index * K_TILE_SIZE, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    Q_block_ptr = tl.make_block_ptr(Q_ptr + batch_index * stride_qb, shape=(N_QUERIES, D), strides=(stride_qq, stride_qd),
                                    offsets=(0, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    dO_block_ptr = tl.make_block_ptr(dO_ptr + batch_index * stride_qb, shape=(N_QUERIES, D), strides=(stride_qq, stride_qd),
                                     offsets=(0, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    L_block_ptr = tl.make_block_ptr(L_ptr + batch_index * stride_lb, shape=(N_QUERIES,), strides=(stride_lq,),
                                    offsets=(0,), block_shape=(Q_TILE_SIZE,), order=(0,))
    D_block_ptr = tl.make_block_ptr(D_ptr + batch_index * stride_lb, shape=(N_QUERIES,), strides=(stride_lq,),
                                    offsets=(0,), block_shape=(Q_TILE_SIZE,), order=(0,))
    k = tl.load(K_block_ptr, boundary_check=(0, 1), padding_option="zero")
    v = tl.load(V_block_ptr, boundary_check=(0, 1), padding_option="zero")
    dk = tl.zeros((K_TILE_SIZE, D), dtype=tl.float32)
    dv = tl.zeros((K_TILE_SIZE, D), dtype=tl.float32)
    k_idx = key_tile_index * K_TILE_SIZE + tl.arange(0, K_TILE_SIZE)
    for i in range(tl.cdiv(N_QUERIES, Q_TILE_SIZE)):
        q = tl.load(Q_block_ptr, boundary_check=(0, 1), padding_option="zero")
        do = tl.load(dO_block_ptr, boundary_check=(0, 1), padding_option="zero")
        l_i = tl.load(L_block_ptr, boundary_check=(0,), padding_option="zero")
        d_i = tl.load(D_block_ptr, boundary_check=(0,), padding_option="zero")
        q_idx = i * Q_TILE_SIZE + tl.arange(0, Q_TILE_SIZE)
        keep = (q_idx[:, None] < N_QUERIES) & (k_idx[None, :] < N_KEYS)
        if is_causal:
            keep = keep & (k_idx[None, :] <= q_idx[:, None] + (N_KEYS - N_QUERIES))
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        p = tl.where(keep, tl.exp(s - l_i[:, None]), 0.0)
        dv += tl.dot(tl.trans(p), do, input_precision="ieee")
        dp = tl.dot(do, tl.trans(v), input_precision="ieee")
        ds = p * (dp - d_i[:, None])
        dk += tl.dot(tl.trans(ds), q, input_precision="ieee") * scale
        Q_block_ptr = Q_block_ptr.advance((Q_TILE_SIZE, 0))
        dO_block_ptr = dO_block_ptr.advance((Q_TILE_SIZE, 0))
        L_block_ptr = L_block_ptr.advance((Q_TILE_SIZE,))
        D_block_ptr = D_block_ptr.advance((Q_TILE_SIZE,))
    tl.store(dK_block_ptr, dk, boundary_check=(0, 1))
    tl.store(dV_block_ptr, dv, boundary_check=(0, 1))


@triton.jit
def flash_bwd_dq_kernel(Q_ptr, K_ptr, V_ptr, dO_ptr, L_ptr, D_ptr, dQ_ptr, stride_qb, stride_qq, stride_qd,
                        stride_kb, stride_kk, stride_kd, stride_lb, stride_lq, N_QUERIES, N_KEYS, scale,
                        D: tl.constexpr, Q_TILE_SIZE: tl.constexpr, K_TILE_SIZE: tl.constexpr,
                        is_causal: tl.constexpr):
    query_tile_index, batch_index = tl.program_id(0), tl.program_id(1)
    Q_block_ptr = tl.make_block_ptr(Q_ptr + batch_index * stride_qb, shape=(N_QUERIES, D), strides=(stride_qq, stride_qd),
                                    offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    dO_block_ptr = tl.make_block_ptr(dO_ptr + batch_index * stride_qb, shape=(N_QUERIES, D), strides=(stride_qq, stride_qd),
                                     offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    dQ_block_ptr = tl.make_block_ptr(dQ_ptr + batch_index * stride_qb, shape=(N_QUERIES, D), strides=(stride_qq, stride_qd),
                                     offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    L_block_ptr = tl.make_block_ptr(L_ptr + batch_index * stride_lb, shape=(N_QUERIES,), strides=(stride_lq,),
                                    offsets=(query_tile_index * Q_TILE_SIZE,), block_shape=(Q_TILE_SIZE,), order=(0,))
    D_block_ptr = tl.make_block_ptr(D_ptr + batch_index * stride_lb, shape=(N_QUERIES,), strides=(stride_lq,),
                                    offsets=(query_tile_index * Q_TILE_SIZE,), block_shape=(Q_TILE_SIZE,), order=(0,))
    K_block_ptr = tl.make_block_ptr(K_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                    offsets=(0, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    V_block_ptr = tl.make_block_ptr(V_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                    offsets=(0, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    q = tl.load(Q_block_ptr, boundary_check=(0, 1), padding_option="zero")
    do = tl.load(dO_block_ptr, boundary_check=(0, 1), padding_option="zero")
    l_i = tl.load(L_block_ptr, boundary_check=(0,), padding_option="zero")
    d_i = tl.load(D_block_ptr, boundary_check=(0,), padding_option="zero")
    q_idx = query_tile_index * Q_TILE_SIZE + tl.arange(0, Q_TILE_SIZE)
    dq = tl.zeros((Q_TILE_SIZE, D), dtype=tl.float32)
    for j in range(tl.cdiv(N_KEYS, K_TILE_SIZE)):
        k = tl.load(K_block_ptr, boundary_check=(0, 1), padding_option="zero")
        v = tl.load(V_block_ptr, boundary_check=(0, 1), padding_option="zero")
        k_idx = j * K_TILE_SIZE + tl.arange(0, K_TILE_SIZE)
        keep = (q_idx[:, None] < N_QUERIES) & (k_idx[None, :] < N_KEYS)
        if is_causal:
            keep = keep & (k_idx[None, :] <= q_idx[:, None] + (N_KEYS - N_QUERIES))
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        p = tl.where(keep, tl.exp(s - l_i[:, None]), 0.0)
        dp = tl.dot(do, tl.trans(v), input_precision="ieee")
        dq += tl.dot(p * (dp - d_i[:, None]), k, input_precision="ieee") * scale
        K_block_ptr = K_block_ptr.advance((K_TILE_SIZE, 0))
        V_block_ptr = V_block_ptr.advance((K_TILE_SIZE, 0))
    tl.store(dQ_block_ptr, dq, boundary_check=(0, 1))


def run_triton_flash_backward(Q, K, V, O, L, dO, is_causal=False):
    lead, n_q, d = Q.shape[:-2], Q.shape[-2], Q.shape[-1]
    n_k = K.shape[-2]
    q, o, do = (t.reshape(-1, n_q, d).to(torch.float32).contiguous() for t in (Q, O, dO))
    k, v = (t.reshape(-1, n_k, d).to(torch.float32).contiguous() for t in (K, V))
    lse = L.reshape(-1, n_q).to(torch.float32).contiguous()
    delta = torch.empty_like(lse)
    dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
    scale = 1 / math.sqrt(d)
    flash_bwd_preprocess[(triton.cdiv(n_q, 16), q.shape[0])](o, do, delta, *o.stride(), *delta.stride(), n_q, D=d,
                                                             Q_TILE_SIZE=16)
    flash_bwd_dkdv_kernel[(triton.cdiv(n_k, 16), q.shape[0])](
        q, k, v, do, lse, delta, dk, dv, *q.stride(), *k.stride(), *lse.stride(), n_q, n_k, scale, D=d,
        Q_TILE_SIZE=16, K_TILE_SIZE=16, is_causal=is_causal)
    flash_bwd_dq_kernel[(triton.cdiv(n_q, 16), q.shape[0])](
        q, k, v, do, lse, delta, dq, *q.stride(), *k.stride(), *lse.stride(), n_q, n_k, scale, D=d,
        Q_TILE_SIZE=16, K_TILE_SIZE=16, is_causal=is_causal)
    return (dq.to(Q.dtype).reshape(*lead, n_q, d), dk.to(K.dtype).reshape(*lead, n_k, d),
            dv.to(V.dtype).reshape(*lead, n_k, d))
