"""Written for a single query vector and its row of the mask, the way the formula is first written
(softmax(q·kᵀ/√d) over the keys, then the weighted sum of values), and lifted to every query and every batch entry
with jax.vmap: the mask and inputs are broadcast to one shape and the leading axes flattened first, so any mask
shape that broadcasts works."""

import math

import jax
import jax.numpy as jnp


def _one_query(q, k, v, allowed):  # q (d_k,), k (keys, d_k), v (keys, d_v), allowed (keys,)
    scores = k @ q / math.sqrt(q.shape[-1])
    scores = jnp.where(allowed, scores, -jnp.inf)
    weights = jnp.exp(scores - scores.max())
    return weights / weights.sum() @ v


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    n_q, n_k = Q.shape[-2], K.shape[-2]
    allowed = jnp.ones((n_q, n_k), dtype=bool) if mask is None else mask.astype(bool)
    lead = jnp.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2], allowed.shape[:-2])
    q = jnp.broadcast_to(Q, (*lead, *Q.shape[-2:])).reshape(-1, *Q.shape[-2:])
    k = jnp.broadcast_to(K, (*lead, *K.shape[-2:])).reshape(-1, *K.shape[-2:])
    v = jnp.broadcast_to(V, (*lead, *V.shape[-2:])).reshape(-1, *V.shape[-2:])
    m = jnp.broadcast_to(allowed, (*lead, n_q, n_k)).reshape(-1, n_q, n_k)
    per_query = jax.vmap(_one_query, in_axes=(0, None, None, 0))  # over the queries of one batch entry
    out = jax.vmap(per_query)(q, k, v, m)  # over the batch entries
    return out.reshape(*lead, n_q, V.shape[-1])
