# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
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
    raise NotImplementedError("exercise cross_attention: implement run_cross_attention")
