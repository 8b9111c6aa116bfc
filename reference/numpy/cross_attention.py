"""Cross-attention with an encoder padding mask, in NumPy: how a Transformer decoder reads its encoder's output.

In an encoder-decoder Transformer (translation, speech recognition, T5), every decoder layer has a second
attention block: its queries come from the decoder's own states, its keys and values from the encoder's
final states. Nothing here is causal: every decoder position may look at the whole source sentence. But the
source sentences of a batch have different lengths, so the shorter ones are padded to the longest, and the
padding positions must get attention weight exactly 0: encoder_padding_mask is True for real tokens and
False for padding. Multi-head as in multihead.py: one projection each, split into heads of d_model/num_heads.
"""

import math

import numpy as np
from jaxtyping import Bool, Float


# BEGIN SOLUTION
def _split_heads(x: np.ndarray, num_heads: int) -> np.ndarray:
    """(..., seq, num_heads * d_head) -> (..., num_heads, seq, d_head)."""
    *batch, seq_len, d_model = x.shape
    x = x.reshape(*batch, seq_len, num_heads, d_model // num_heads)  # (..., seq, heads, d_head)
    return x.swapaxes(-3, -2)  # (..., heads, seq, d_head)


def _merge_heads(x: np.ndarray) -> np.ndarray:
    """(..., num_heads, seq, d_head) -> (..., seq, num_heads * d_head)."""
    *batch, num_heads, seq_len, d_head = x.shape
    return x.swapaxes(-3, -2).reshape(*batch, seq_len, num_heads * d_head)  # (..., seq, d_model)


def _softmax(scores: np.ndarray) -> np.ndarray:
    """Softmax over the last axis, shifted by each row's maximum."""
    exponentials = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return exponentials / exponentials.sum(axis=-1, keepdims=True)


def _attend_to_real_keys(queries, keys, values, real_keys: np.ndarray) -> np.ndarray:
    """softmax(q kᵀ / √d_head) v over the keys where real_keys is True. queries (..., heads, T_dec, d_head),
    keys and values (..., heads, T_enc, d_head), real_keys broadcastable to (..., heads, T_dec, T_enc)."""
    scores = queries @ keys.swapaxes(-2, -1) / math.sqrt(queries.shape[-1])  # (..., heads, T_dec, T_enc)
    scores = np.where(real_keys, scores, -np.inf)  # padding gets weight exactly 0 after the softmax
    weights = _softmax(scores)  # (..., heads, T_dec, T_enc), rows sum to 1 over real tokens
    return weights @ values  # (..., heads, T_dec, d_head)
# END SOLUTION


def run_cross_attention(
    d_model: int,
    num_heads: int,
    q_proj_weight: Float[np.ndarray, "d_model d_model"],
    k_proj_weight: Float[np.ndarray, "d_model d_model"],
    v_proj_weight: Float[np.ndarray, "d_model d_model"],
    o_proj_weight: Float[np.ndarray, "d_model d_model"],
    decoder_states: Float[np.ndarray, "*batch t_dec d_model"],
    encoder_states: Float[np.ndarray, "*batch t_enc d_model"],
    encoder_padding_mask: Bool[np.ndarray, "*batch t_enc"],
) -> Float[np.ndarray, "*batch t_dec d_model"]:
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
        encoder_padding_mask: bool array, shape (..., T_enc) with the same leading axes: True for a real
            token, False for padding. One row per encoder sequence, shared by all heads and all decoder
            positions; every row has at least one real token.

    Returns:
        A new numpy.ndarray of shape (..., T_dec, d_model) and the dtype of `decoder_states`. The encoder
        states at padding positions have no effect on it.

    中文：多头交叉注意力：查询来自解码器，键和值来自编码器；填充位置（掩码为 False）在 softmax 前置为 -inf，
    不加因果掩码；返回与 decoder_states dtype 相同的数组。
    """
    # BEGIN SOLUTION
    queries = _split_heads(decoder_states @ q_proj_weight.T, num_heads)  # (..., heads, T_dec, d_head)
    keys = _split_heads(encoder_states @ k_proj_weight.T, num_heads)  # (..., heads, T_enc, d_head)
    values = _split_heads(encoder_states @ v_proj_weight.T, num_heads)  # (..., heads, T_enc, d_head)
    # The mask has one row per sequence: make room for the head and query axes, not just one of them.
    real_keys = encoder_padding_mask[..., None, None, :]  # (..., 1, 1, T_enc)
    heads = _attend_to_real_keys(queries, keys, values, real_keys)  # (..., heads, T_dec, d_head)
    out = _merge_heads(heads) @ o_proj_weight.T  # (..., T_dec, d_model)
    return out.astype(decoder_states.dtype)
    # END SOLUTION
