"""Explicit Python loops over every leading index and every query, computing one row of weights at a time
with 1-D dot products, the way a first from-scratch implementation often looks. Slow, but correct."""

import math

import numpy as np


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    lead = np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2],
                               () if mask is None else mask.shape[:-2])
    compute = np.promote_types(Q.dtype, np.float32)
    out = np.zeros((*lead, Q.shape[-2], V.shape[-1]), dtype=compute)
    for index in np.ndindex(*lead):
        q = np.broadcast_to(Q, (*lead, *Q.shape[-2:]))[index].astype(compute)
        k = np.broadcast_to(K, (*lead, *K.shape[-2:]))[index].astype(compute)
        v = np.broadcast_to(V, (*lead, *V.shape[-2:]))[index].astype(compute)
        m = None if mask is None else np.broadcast_to(mask, (*lead, q.shape[0], k.shape[0]))[index]
        for i in range(q.shape[0]):
            scores = np.array([np.dot(q[i], k[j]) for j in range(k.shape[0])]) / math.sqrt(q.shape[-1])
            if m is not None:
                scores = np.where(m[i] != 0, scores, -np.inf)
            exps = np.exp(scores - scores.max())
            out[index][i] = (exps / exps.sum()) @ v
    return out.astype(Q.dtype)
