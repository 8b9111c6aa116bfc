"""Cross-attention with an encoder padding mask, in JAX: how a Transformer decoder reads its encoder's output.

In an encoder-decoder Transformer (translation, speech recognition, T5), every decoder layer has a second
attention block: its queries come from the decoder's own states, its keys and values from the encoder's
final states. Nothing here is causal: every decoder position may look at the whole source sentence. But the
source sentences of a batch have different lengths, so the shorter ones are padded to the longest, and the
padding positions must get attention weight exactly 0: encoder_padding_mask is True for real tokens and
False for padding. Multi-head as in multihead.py: one projection each, split into heads of d_model/num_heads.
"""

import math

import jax
import jax.numpy as jnp
from jaxtyping import Bool, Float


# BEGIN SOLUTION
def _split_heads(x: jax.Array, num_heads: int) -> jax.Array:
    """(..., seq, num_heads * d_head) -> (..., num_heads, seq, d_head)."""
    *batch, seq_len, d_model = x.shape
    x = x.reshape(*batch, seq_len, num_heads, d_model // num_heads)  # (..., seq, heads, d_head)
    return jnp.swapaxes(x, -3, -2)  # (..., heads, seq, d_head)


def _merge_heads(x: jax.Array) -> jax.Array:
    """(..., num_heads, seq, d_head) -> (..., seq, num_heads * d_head)."""
    *batch, num_heads, seq_len, d_head = x.shape
    return jnp.swapaxes(x, -3, -2).reshape(*batch, seq_len, num_heads * d_head)  # (..., seq, d_model)


def _attend_to_real_keys(queries: jax.Array, keys: jax.Array, values: jax.Array, real_keys: jax.Array) -> jax.Array:
    """softmax(q kᵀ / √d_head) v over the keys where real_keys is True. queries (..., heads, T_dec, d_head),
    keys and values (..., heads, T_enc, d_head), real_keys broadcastable to (..., heads, T_dec, T_enc)."""
    scores = queries @ jnp.swapaxes(keys, -2, -1) / math.sqrt(queries.shape[-1])  # (..., heads, T_dec, T_enc)
    scores = jnp.where(real_keys, scores, -jnp.inf)  # padding gets weight exactly 0 after the softmax
    weights = jax.nn.softmax(scores, axis=-1)  # (..., heads, T_dec, T_enc), rows sum to 1 over real tokens
    return weights @ values  # (..., heads, T_dec, d_head)
# END SOLUTION


def run_cross_attention(
    d_model: int,
    num_heads: int,
    q_proj_weight: Float[jax.Array, "d_model d_model"],
    k_proj_weight: Float[jax.Array, "d_model d_model"],
    v_proj_weight: Float[jax.Array, "d_model d_model"],
    o_proj_weight: Float[jax.Array, "d_model d_model"],
    decoder_states: Float[jax.Array, "*batch t_dec d_model"],
    encoder_states: Float[jax.Array, "*batch t_enc d_model"],
    encoder_padding_mask: Bool[jax.Array, "*batch t_enc"],
) -> Float[jax.Array, "*batch t_dec d_model"]:
    """Multi-head cross-attention: decoder queries attend to the encoder's real (unpadded) tokens.

    queries = decoder_states W_qᵀ, keys = encoder_states W_kᵀ, values = encoder_states W_vᵀ, each split into
    num_heads heads of d_head = d_model / num_heads; per head softmax(q kᵀ / √d_head) v with the scores of
    padding keys set to -inf (no causal mask: every decoder position sees every real encoder token); heads
    merged back and projected by W_o. No biases.

    Args:
        d_model: size of decoder and encoder states, queries, keys, values and output; divisible by num_heads.
        num_heads: number of heads.
        q_proj_weight: query projection W_q, shape (d_model, d_model), torch.nn.Linear layout (out, in).
        k_proj_weight: key projection W_k, shape (d_model, d_model).
        v_proj_weight: value projection W_v, shape (d_model, d_model).
        o_proj_weight: output projection W_o, shape (d_model, d_model).
        decoder_states: the queries' source, shape (..., T_dec, d_model).
        encoder_states: the keys' and values' source, shape (..., T_enc, d_model), same leading axes.
        encoder_padding_mask: bool, shape (..., T_enc) with the same leading axes: True for a real token,
            False for padding. One row per encoder sequence, shared by all heads and all decoder positions;
            every row has at least one real token.

    Returns:
        Shape (..., T_dec, d_model), dtype of `decoder_states`. The encoder states at padding positions have
        no effect on it.

    中文：多头交叉注意力：查询来自解码器，键和值来自编码器；填充位置（掩码为 False）在 softmax 前置为 -inf，
    不加因果掩码。
    """
    # BEGIN SOLUTION
    queries = _split_heads(decoder_states @ q_proj_weight.T, num_heads)  # (..., heads, T_dec, d_head)
    keys = _split_heads(encoder_states @ k_proj_weight.T, num_heads)  # (..., heads, T_enc, d_head)
    values = _split_heads(encoder_states @ v_proj_weight.T, num_heads)  # (..., heads, T_enc, d_head)
    # The mask has one row per sequence: make room for the head and query axes, not just one of them.
    real_keys = encoder_padding_mask[..., None, None, :]  # (..., 1, 1, T_enc)
    heads = _attend_to_real_keys(queries, keys, values, real_keys)  # (..., heads, T_dec, d_head)
    return _merge_heads(heads) @ o_proj_weight.T  # (..., T_dec, d_model)
    # END SOLUTION
