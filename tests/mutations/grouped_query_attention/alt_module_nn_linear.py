"""A module as in Llama's code: nn.Linear layers without bias whose weights are loaded from the arguments,
and repeat_kv built from expand + reshape on the head axis."""

import math

import torch
from torch import nn


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model, num_heads, num_kv_heads, dtype=None, device=None):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim = d_model // num_heads
        kv_dim = num_kv_heads * self.head_dim
        self.q_proj = nn.Linear(d_model, d_model, bias=False, dtype=dtype, device=device)
        self.k_proj = nn.Linear(d_model, kv_dim, bias=False, dtype=dtype, device=device)
        self.v_proj = nn.Linear(d_model, kv_dim, bias=False, dtype=dtype, device=device)
        self.o_proj = nn.Linear(d_model, d_model, bias=False, dtype=dtype, device=device)

    def repeat_kv(self, x):
        *lead, n_kv, t, hd = x.shape
        n_rep = self.num_heads // n_kv
        x = x.unsqueeze(-3).expand(*lead, n_kv, n_rep, t, hd)
        return x.reshape(*lead, n_kv * n_rep, t, hd)

    def forward(self, x):
        *lead, t, d_model = x.shape
        q = self.q_proj(x).view(*lead, t, self.num_heads, self.head_dim).transpose(-3, -2)
        k = self.k_proj(x).view(*lead, t, self.num_kv_heads, self.head_dim).transpose(-3, -2)
        v = self.v_proj(x).view(*lead, t, self.num_kv_heads, self.head_dim).transpose(-3, -2)
        k, v = self.repeat_kv(k), self.repeat_kv(v)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
        scores = scores.masked_fill(~causal, float("-inf"))
        y = torch.softmax(scores, dim=-1) @ v
        return self.o_proj(y.transpose(-3, -2).reshape(*lead, t, d_model))


def run_grouped_query_attention(d_model, num_heads, num_kv_heads, q_proj_weight, k_proj_weight, v_proj_weight,
                                o_proj_weight, in_features):
    module = GroupedQueryAttention(d_model, num_heads, num_kv_heads, dtype=in_features.dtype,
                                   device=in_features.device)
    module.load_state_dict({"q_proj.weight": q_proj_weight, "k_proj.weight": k_proj_weight,
                            "v_proj.weight": v_proj_weight, "o_proj.weight": o_proj_weight})
    return module(in_features)
