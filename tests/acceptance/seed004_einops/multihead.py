# Your implementation. Generated from the reference by `python -m attnlab.instructor.generate template`:
# keep every function's name, arguments and annotations; replace each `raise NotImplementedError`.
"""Multi-head attention, three ways: seed 002 (and seed 001 §3.6) and seed 000's nanoGPT block.

- run_multihead_attention_wrapper: independent causal heads, outputs concatenated (MultiHeadAttentionWrapper).
- run_multihead_self_attention: one projection split into heads, then an output projection
  (MultiHeadAttention).
- run_gpt2_causal_self_attention: the same with one fused q/k/v projection with bias (nanoGPT
  CausalSelfAttention).
"""

import einx
import torch
from einops import einsum, rearrange
from jaxtyping import Float
from torch import Tensor, nn

from .attention import Linear, make_linear, run_causal_mask, run_scaled_dot_product_attention


class Multihead_self_attention(nn.Module):
    """多头自注意力（seed 004），causal, with optional RoPE on Q and K."""

    def __init__(self, d_model: int, num_heads: int, pos_encode: nn.Module | None = None,
                 theta: float | None = None, d_in: int | None = None, o_bias: bool = False,
                 device=None, dtype=None):
        super().__init__()
        assert d_model % num_heads == 0, f"d_model ({d_model}) must be divisible by num_heads ({num_heads})"
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.d_v = self.d_k
        self.d_in = d_in if d_in is not None else d_model

        self.q_proj = Linear(self.d_in, self.num_heads * self.d_k, device=device, dtype=dtype)
        self.k_proj = Linear(self.d_in, self.num_heads * self.d_k, device=device, dtype=dtype)
        self.v_proj = Linear(self.d_in, self.num_heads * self.d_v, device=device, dtype=dtype)
        self.o_proj = Linear(self.num_heads * self.d_v, self.d_model, bias=o_bias, device=device, dtype=dtype)

        self.pos_encode = pos_encode
        self.theta = theta

    def forward(self, x: torch.Tensor, token_positions: torch.Tensor | None = None) -> torch.Tensor:
        *b, sequence_length, d_in = x.size()
        assert d_in == self.d_in, f"Input d_in ({d_in}) != expected ({self.d_in})"

        Q = self.q_proj(x)
        K = self.k_proj(x)
        V = self.v_proj(x)

        Q = rearrange(Q, "... seq (heads d) -> ... heads seq d", heads=self.num_heads)
        K = rearrange(K, "... seq (heads d) -> ... heads seq d", heads=self.num_heads)
        V = rearrange(V, "... seq (heads d) -> ... heads seq d", heads=self.num_heads)

        if self.theta is not None:
            if token_positions is None:
                token_positions = einx.rearrange(
                    "seq -> b... seq",
                    torch.arange(sequence_length, device=x.device),
                    b=[1] * len(b),
                )
            # (..., seq) -> (..., 1, seq): the same positions for every head
            token_positions = rearrange(token_positions, "... seq -> ... 1 seq")
            Q = self.pos_encode(Q, token_positions)
            K = self.pos_encode(K, token_positions)

        causal_mask = torch.tril(torch.ones(sequence_length, sequence_length, device=x.device))
        att = run_scaled_dot_product_attention(Q=Q, K=K, V=V, mask=causal_mask)
        att = rearrange(att, "... heads seq d_v -> ... seq (heads d_v)").contiguous()
        return self.o_proj(att)


def run_multihead_attention_wrapper(
    d_in: int,
    d_out: int,
    num_heads: int,
    q_proj_weights: Float[Tensor, "num_heads d_out d_in"],
    k_proj_weights: Float[Tensor, "num_heads d_out d_in"],
    v_proj_weights: Float[Tensor, "num_heads d_out d_in"],
    in_features: Float[Tensor, "... seq d_in"],
) -> Float[Tensor, "... seq num_heads*d_out"]:
    """Multi-head attention as a stack of independent causal heads (seed 002 方案一, seed 001 §3.6.1).

    Head h is run_causal_attention with its own weights q_proj_weights[h], k_proj_weights[h],
    v_proj_weights[h] (no biases, scores scaled by √d_out); the head outputs are concatenated along
    the last dimension in head order. There is no output projection.

    Args:
        d_in: size of each input embedding.
        d_out: size of each head's query, key, value and output vectors.
        num_heads: number of heads.
        q_proj_weights: query weights of all heads, shape (num_heads, d_out, d_in).
        k_proj_weights: key weights of all heads, shape (num_heads, d_out, d_in).
        v_proj_weights: value weights of all heads, shape (num_heads, d_out, d_in).
        in_features: input embeddings, shape (..., seq, d_in).

    Returns:
        Shape (..., seq, num_heads * d_out): columns h*d_out .. (h+1)*d_out - 1 are head h's output.

    中文：顺序堆叠多个因果注意力头，每个头权重独立，最后在最后一维拼接各头输出。
    """
    # all heads at once: the head axis of the weights becomes a head axis of Q, K, V
    Q = einsum(in_features, q_proj_weights, "... seq d_in, heads d_out d_in -> ... heads seq d_out")
    K = einsum(in_features, k_proj_weights, "... seq d_in, heads d_out d_in -> ... heads seq d_out")
    V = einsum(in_features, v_proj_weights, "... seq d_in, heads d_out d_in -> ... heads seq d_out")
    causal_mask = run_causal_mask(in_features.shape[-2], device=in_features.device)
    att = run_scaled_dot_product_attention(Q=Q, K=K, V=V, mask=causal_mask)
    return rearrange(att, "... heads seq d_out -> ... seq (heads d_out)")


def run_multihead_self_attention(
    d_model: int,
    num_heads: int,
    q_proj_weight: Float[Tensor, "d_model d_in"],
    k_proj_weight: Float[Tensor, "d_model d_in"],
    v_proj_weight: Float[Tensor, "d_model d_in"],
    o_proj_weight: Float[Tensor, "d_model d_model"],
    in_features: Float[Tensor, "... seq d_in"],
    o_proj_bias: Float[Tensor, "d_model"] | None = None,
) -> Float[Tensor, "... seq d_model"]:
    """Causal multi-head self-attention by splitting one projection into heads (seed 002 方案二, §3.6.2).

    Project the input to queries, keys and values of size d_model, split each into num_heads heads of
    size d_k = d_model / num_heads, move the head axis in front of the sequence axis, run causal
    scaled dot-product attention per head (scaled by √d_k), put the heads back side by side and apply
    the output projection.

    Args:
        d_model: total size of queries, keys, values and output; divisible by num_heads.
        num_heads: number of heads.
        q_proj_weight: query projection, shape (d_model, d_in) (d_in may differ from d_model).
        k_proj_weight: key projection, shape (d_model, d_in).
        v_proj_weight: value projection, shape (d_model, d_in).
        o_proj_weight: output projection, shape (d_model, d_model).
        in_features: input embeddings, shape (..., seq, d_in).
        o_proj_bias: optional output projection bias, shape (d_model,).

    Returns:
        Shape (..., seq, d_model), dtype and device of `in_features`.

    中文：并行多头注意力：一次投影后拆分成多个头，先把头维移到序列维前面，按头做因果注意力，再合并并做输出投影。
    """
    mha = Multihead_self_attention(d_model, num_heads, d_in=in_features.shape[-1], o_bias=o_proj_bias is not None,
                                   device=in_features.device, dtype=in_features.dtype)
    state_dict = {
        "q_proj.weight": q_proj_weight,
        "k_proj.weight": k_proj_weight,
        "v_proj.weight": v_proj_weight,
        "o_proj.weight": o_proj_weight,
    }
    if o_proj_bias is not None:
        state_dict["o_proj.bias"] = o_proj_bias
    mha.load_state_dict(state_dict)
    return mha(in_features)


def run_gpt2_causal_self_attention(
    n_embd: int,
    n_head: int,
    c_attn_weight: Float[Tensor, "three_n_embd n_embd"],
    c_attn_bias: Float[Tensor, "three_n_embd"],
    c_proj_weight: Float[Tensor, "n_embd n_embd"],
    c_proj_bias: Float[Tensor, "n_embd"],
    in_features: Float[Tensor, "... seq n_embd"],
) -> Float[Tensor, "... seq n_embd"]:
    """GPT-2's causal self-attention block, as in nanoGPT's CausalSelfAttention (seed 000 §3).

    One fused linear layer c_attn computes queries, keys and values together; its output is split
    along the last dimension into q, k, v (in that order, n_embd each). Each is split into n_head heads
    of size n_embd / n_head, causal attention is scaled by √(n_embd / n_head), the heads are merged and
    the output projection c_proj is applied.

    Args:
        n_embd: embedding size; divisible by n_head.
        n_head: number of heads.
        c_attn_weight: fused q/k/v projection, shape (3 * n_embd, n_embd); rows 0..n_embd-1 give q,
            the next n_embd rows give k, the last n_embd rows give v.
        c_attn_bias: fused q/k/v bias, shape (3 * n_embd,).
        c_proj_weight: output projection, shape (n_embd, n_embd).
        c_proj_bias: output projection bias, shape (n_embd,).
        in_features: input embeddings, shape (..., seq, n_embd).

    Returns:
        Shape (..., seq, n_embd), dtype and device of `in_features`.

    中文：GPT-2（nanoGPT）因果自注意力：融合的 c_attn 一次算出 q、k、v，拆头做因果注意力，合并后经 c_proj。
    """
    c_attn = make_linear(c_attn_weight, c_attn_bias, like=in_features)
    c_proj = make_linear(c_proj_weight, c_proj_bias, like=in_features)
    qkv = c_attn(in_features)  # (..., seq, 3 * n_embd), q | k | v
    q, k, v = rearrange(qkv, "... seq (three heads d) -> three ... heads seq d", three=3, heads=n_head)
    causal_mask = run_causal_mask(in_features.shape[-2], device=in_features.device)
    y = run_scaled_dot_product_attention(Q=q, K=k, V=v, mask=causal_mask)
    y = rearrange(y, "... heads seq d -> ... seq (heads d)")
    return c_proj(y)
