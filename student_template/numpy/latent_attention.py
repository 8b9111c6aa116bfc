# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Multi-head latent attention (DeepSeek-V2's MLA) in NumPy, in its naive form.

MLA caches one latent vector c per token; every head's key and value are projected up from it, and the
position goes into a separate rotary part: a key k_rope shared by all heads and a rotary part of each head's
query. A head's score is (q_nope·k_nope + q_rope·k_rope) / √(d_nope + d_rope). The weights are
nn.Linear-shaped (out, in): per head the query is [q_nope | q_rope], the up-projected latent [k_nope | v];
the down-projection gives [c | k_rope].
"""

import math
from typing import Optional

import numpy as np
from jaxtyping import Float, Int


def run_latent_attention(
    d_model: int,
    num_heads: int,
    d_nope: int,
    d_rope: int,
    theta: float,
    q_proj_weight: Float[np.ndarray, "q_dim d_model"],
    kv_down_proj_weight: Float[np.ndarray, "down_dim d_model"],
    kv_up_proj_weight: Float[np.ndarray, "up_dim d_latent"],
    o_proj_weight: Float[np.ndarray, "d_model v_dim"],
    in_features: Float[np.ndarray, "... seq d_model"],
    token_positions: Optional[Int[np.ndarray, "... seq"]] = None,
) -> Float[np.ndarray, "... seq d_model"]:
    """Causal multi-head latent attention; see the exercise's description for the formulas and layouts.

    Returns:
        A new numpy.ndarray (..., seq, d_model) of the dtype of in_features (bfloat16 computed in float32).

    中文：多头潜在注意力（朴素形式）：键、值由潜向量 c 上投影得到，q_rope 与共享的 k_rope 用 RoPE 旋转，
    分数除以 √(d_nope + d_rope)，因果掩码，最后经 W_o 输出；dtype 与 in_features 相同。
    """
    raise NotImplementedError("exercise latent_attention: implement run_latent_attention")


