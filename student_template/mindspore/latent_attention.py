# Your implementation: keep every function's name, arguments and annotations; replace each
# `raise NotImplementedError`. `attnlab check <exercise>` checks one exercise, `attnlab status` all.
"""Multi-head latent attention (DeepSeek-V2's MLA) in MindSpore, in its naive form.

MLA caches one latent vector c per token; every head's key and value are projected up from it, and the
position goes into a separate rotary part: a key k_rope shared by all heads and a rotary part of each head's
query. A head's score is (q_nope·k_nope + q_rope·k_rope) / √(d_nope + d_rope). The weights are
nn.Dense-shaped (out, in): per head the query is [q_nope | q_rope], the up-projected latent [k_nope | v];
the down-projection gives [c | k_rope].
"""

import math
from typing import Optional

import mindspore
from jaxtyping import Float, Int
from mindspore import ops


def run_latent_attention(
    d_model: int,
    num_heads: int,
    d_nope: int,
    d_rope: int,
    theta: float,
    q_proj_weight: Float[mindspore.Tensor, "q_dim d_model"],
    kv_down_proj_weight: Float[mindspore.Tensor, "down_dim d_model"],
    kv_up_proj_weight: Float[mindspore.Tensor, "up_dim d_latent"],
    o_proj_weight: Float[mindspore.Tensor, "d_model v_dim"],
    in_features: Float[mindspore.Tensor, "... seq d_model"],
    token_positions: Optional[Int[mindspore.Tensor, "... seq"]] = None,
) -> Float[mindspore.Tensor, "... seq d_model"]:
    """Causal multi-head latent attention; see the exercise's description for the formulas and layouts.

    Returns:
        A new mindspore.Tensor (..., seq, d_model) of the dtype of in_features.

    中文：多头潜在注意力（朴素形式）：键、值由潜向量 c 上投影得到，q_rope 与共享的 k_rope 用 RoPE 旋转，
    分数除以 √(d_nope + d_rope)，因果掩码，最后经 W_o 输出；dtype 与 in_features 相同。
    """
    raise NotImplementedError("exercise latent_attention: implement run_latent_attention")


