"""CS336's handout style: tl.make_block_ptr for the Q, K, V, O and L tiles, .advance along the keys, and
boundary_check / padding_option="zero" instead of hand-made masks (what Triton 3.7.1's interpreter runs and
3.9 removed); the launcher upcasts to float32 and casts O back."""

import math
import os

import torch

if "TRITON_INTERPRET" not in os.environ and not torch.cuda.is_available():
    os.environ["TRITON_INTERPRET"] = "1"

import triton  # noqa: E402
import triton.language as tl  # noqa: E402

DIAGNOSIS = None


@triton.jit
def flash_fwd_kernel(Q_ptr, K_ptr, V_ptr, O_ptr, L_ptr, stride_qb, stride_qq, stride_qd, stride_kb, stride_kk,
                     stride_kd, stride_vb, stride_vk, stride_vd, stride_ob, stride_oq, stride_od, stride_lb,
                     stride_lq, N_QUERIES, N_KEYS, scale, D: tl.constexpr, Q_TILE_SIZE: tl.constexpr,
                     K_TILE_SIZE: tl.constexpr, is_causal: tl.constexpr):
    query_tile_index = tl.program_id(0)
    batch_index = tl.program_id(1)
    Q_block_ptr = tl.make_block_ptr(Q_ptr + batch_index * stride_qb, shape=(N_QUERIES, D), strides=(stride_qq, stride_qd),
                                    offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    K_block_ptr = tl.make_block_ptr(K_ptr + batch_index * stride_kb, shape=(N_KEYS, D), strides=(stride_kk, stride_kd),
                                    offsets=(0, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    V_block_ptr = tl.make_block_ptr(V_ptr + batch_index * stride_vb, shape=(N_KEYS, D), strides=(stride_vk, stride_vd),
                                    offsets=(0, 0), block_shape=(K_TILE_SIZE, D), order=(1, 0))
    O_block_ptr = tl.make_block_ptr(O_ptr + batch_index * stride_ob, shape=(N_QUERIES, D), strides=(stride_oq, stride_od),
                                    offsets=(query_tile_index * Q_TILE_SIZE, 0), block_shape=(Q_TILE_SIZE, D), order=(1, 0))
    L_block_ptr = tl.make_block_ptr(L_ptr + batch_index * stride_lb, shape=(N_QUERIES,), strides=(stride_lq,),
                                    offsets=(query_tile_index * Q_TILE_SIZE,), block_shape=(Q_TILE_SIZE,), order=(0,))
    q = tl.load(Q_block_ptr, boundary_check=(0, 1), padding_option="zero")
    m_i = tl.full((Q_TILE_SIZE,), float("-inf"), dtype=tl.float32)
    l_i = tl.zeros((Q_TILE_SIZE,), dtype=tl.float32)
    o_i = tl.zeros((Q_TILE_SIZE, D), dtype=tl.float32)
    q_idx = query_tile_index * Q_TILE_SIZE + tl.arange(0, Q_TILE_SIZE) + (N_KEYS - N_QUERIES)
    for j in range(tl.cdiv(N_KEYS, K_TILE_SIZE)):
        k = tl.load(K_block_ptr, boundary_check=(0, 1), padding_option="zero")
        v = tl.load(V_block_ptr, boundary_check=(0, 1), padding_option="zero")
        s = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        k_idx = j * K_TILE_SIZE + tl.arange(0, K_TILE_SIZE)
        keep = k_idx[None, :] < N_KEYS
        if is_causal:
            keep = keep & (k_idx[None, :] <= q_idx[:, None])
        s = tl.where(keep, s, -1.0e6)
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        p = tl.exp(s - m_new[:, None])
        p = tl.where(keep, p, 0.0)
        alpha = tl.exp(m_i - m_new)
        l_i = alpha * l_i + tl.sum(p, axis=1)
        o_i = alpha[:, None] * o_i + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
        K_block_ptr = K_block_ptr.advance((K_TILE_SIZE, 0))
        V_block_ptr = V_block_ptr.advance((K_TILE_SIZE, 0))
    tl.store(O_block_ptr, o_i / l_i[:, None], boundary_check=(0, 1))
    tl.store(L_block_ptr, m_i + tl.log(l_i), boundary_check=(0,))


def run_triton_flash_forward(Q, K, V, is_causal=False):
    lead, n_q, d = Q.shape[:-2], Q.shape[-2], Q.shape[-1]
    n_k = K.shape[-2]
    q, k, v = (t.reshape(-1, t.shape[-2], d).to(torch.float32) for t in (Q, K, V))
    o = torch.empty_like(q)
    lse = torch.empty(q.shape[:2], dtype=torch.float32, device=Q.device)
    flash_fwd_kernel[(triton.cdiv(n_q, 16), q.shape[0])](
        q, k, v, o, lse, *q.stride(), *k.stride(), *v.stride(), *o.stride(), *lse.stride(), n_q, n_k,
        1 / math.sqrt(d), D=d, Q_TILE_SIZE=16, K_TILE_SIZE=16, is_causal=is_causal)
    return o.to(Q.dtype).reshape(*lead, n_q, d), lse.reshape(*lead, n_q)
