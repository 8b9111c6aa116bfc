# Your implementation. Generated from the reference by `python -m attnlab.instructor.generate template`:
# keep every function's name, arguments and annotations; replace each `raise NotImplementedError`.
"""Multi-head attention, three ways: seed 002 (and seed 001 §3.6) and seed 000's nanoGPT block.

- run_multihead_attention_wrapper: independent causal heads, outputs concatenated (MultiHeadAttentionWrapper).
- run_multihead_self_attention: one projection split into heads, then an output projection
  (MultiHeadAttention).
- run_gpt2_causal_self_attention: the same with one fused q/k/v projection with bias (nanoGPT
  CausalSelfAttention).
"""

import math
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from jaxtyping import Float
from torch import Tensor


@dataclass
class GPTConfig:
    block_size: int = 1024  # 句子长度
    n_head: int = 12  # 注意力头数
    n_embd: int = 768  # 每个词的向量维度，即隐藏层维度
    n_in: int | None = None  # 输入维度（默认等于 n_embd）
    bias: bool = True  # c_attn / c_proj 是否带偏置


class CausalSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        assert config.n_embd % config.n_head == 0
        n_in = config.n_in if config.n_in is not None else config.n_embd
        # key, query, value projections for all heads
        self.c_attn = nn.Linear(n_in, 3 * config.n_embd, bias=config.bias)
        # output projection
        self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
        self.n_head = config.n_head
        self.n_embd = config.n_embd
        self.register_buffer("bias", torch.tril(torch.ones(config.block_size, config.block_size))
                             .view(1, 1, config.block_size, config.block_size))

    def rotate(self, q, k, token_positions):
        return q, k  # no position encoding here; see RoPECausalSelfAttention

    def forward(self, x, token_positions=None):
        B, T, _ = x.size()
        C = self.n_embd

        qkv = self.c_attn(x)
        q, k, v = qkv.split(self.n_embd, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)  # (B, nh, T, hs)
        q, k = self.rotate(q, k, token_positions)

        # causal self-attention; Self-attend: (B, nh, T, hs) x (B, nh, hs, T) -> (B, nh, T, T)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.bias[:, :, :T, :T] == 0, float('-inf'))
        att = F.softmax(att, dim=-1)
        y = att @ v  # (B, nh, T, T) x (B, nh, T, hs) -> (B, nh, T, hs)
        y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble all head outputs side by side

        # output projection
        y = self.c_proj(y)
        return y


class Head(nn.Module):
    """one head of causal self-attention (Karpathy's "Let's build GPT")"""

    def __init__(self, n_in, head_size, block_size):
        super().__init__()
        self.key = nn.Linear(n_in, head_size, bias=False)
        self.query = nn.Linear(n_in, head_size, bias=False)
        self.value = nn.Linear(n_in, head_size, bias=False)
        self.register_buffer('tril', torch.tril(torch.ones(block_size, block_size)))

    def forward(self, x):
        T = x.shape[-2]
        k = self.key(x)
        q = self.query(x)
        wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
        wei = wei.masked_fill(self.tril[:T, :T] == 0, float('-inf'))
        wei = F.softmax(wei, dim=-1)
        v = self.value(x)
        return wei @ v


class MultiHeadAttention(nn.Module):
    """multiple heads of self-attention in parallel, outputs concatenated"""

    def __init__(self, num_heads, n_in, head_size, block_size):
        super().__init__()
        self.heads = nn.ModuleList([Head(n_in, head_size, block_size) for _ in range(num_heads)])

    def forward(self, x):
        return torch.cat([h(x) for h in self.heads], dim=-1)


def load_weights(model, weights):
    """like GPT.from_pretrained: copy each tensor into the module's state_dict entry of that name"""
    sd = model.state_dict()
    for k, w in weights.items():
        assert sd[k].shape == w.shape, (k, sd[k].shape, w.shape)
        with torch.no_grad():
            sd[k].copy_(w)
    return model


def run_blocks(model, in_features, *args):
    """CausalSelfAttention wants (B, T, C): fold every leading dim into B, and unfold afterwards"""
    *lead, T, C = in_features.shape
    y = model(in_features.reshape(-1, T, C), *args)
    return y.reshape(*lead, T, y.shape[-1])


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
    T = in_features.shape[-2]
    model = MultiHeadAttention(num_heads, d_in, d_out, block_size=T)
    model = model.to(device=in_features.device, dtype=in_features.dtype)
    weights = {}
    for h in range(num_heads):
        weights[f"heads.{h}.query.weight"] = q_proj_weights[h]
        weights[f"heads.{h}.key.weight"] = k_proj_weights[h]
        weights[f"heads.{h}.value.weight"] = v_proj_weights[h]
    load_weights(model, weights)
    return model(in_features)


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
    # nanoGPT's block with separate q/k/v weights: stack them into one c_attn, no q/k/v bias
    T, d_in = in_features.shape[-2:]
    config = GPTConfig(block_size=T, n_head=num_heads, n_embd=d_model, n_in=d_in, bias=o_proj_bias is not None)
    model = CausalSelfAttention(config).to(device=in_features.device, dtype=in_features.dtype)
    weights = {
        "c_attn.weight": torch.cat([q_proj_weight, k_proj_weight, v_proj_weight], dim=0),
        "c_proj.weight": o_proj_weight,
    }
    if config.bias:
        weights["c_attn.bias"] = torch.zeros(3 * d_model, dtype=o_proj_bias.dtype, device=o_proj_bias.device)
        weights["c_proj.bias"] = o_proj_bias
    load_weights(model, weights)
    return run_blocks(model, in_features)


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
    config = GPTConfig(block_size=in_features.shape[-2], n_head=n_head, n_embd=n_embd)
    model = CausalSelfAttention(config).to(device=in_features.device, dtype=in_features.dtype)
    load_weights(model, {
        "c_attn.weight": c_attn_weight,
        "c_attn.bias": c_attn_bias,
        "c_proj.weight": c_proj_weight,
        "c_proj.bias": c_proj_bias,
    })
    return run_blocks(model, in_features)
