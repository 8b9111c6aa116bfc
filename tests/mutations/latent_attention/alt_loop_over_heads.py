"""One head at a time: slice each head's rows out of the weights (W_q, W_UK, W_UV, W_O), project, rotate
and attend, then add the heads' contributions to the output."""

import torch

DIAGNOSIS = None


def rotate(t, positions, theta):
    d = t.shape[-1]
    out = torch.empty_like(t)
    for i in range(d // 2):
        angle = positions.to(t.dtype) * theta ** (-2 * i / d)
        out[..., 2 * i] = t[..., 2 * i] * torch.cos(angle) - t[..., 2 * i + 1] * torch.sin(angle)
        out[..., 2 * i + 1] = t[..., 2 * i] * torch.sin(angle) + t[..., 2 * i + 1] * torch.cos(angle)
    return out


def run_latent_attention(d_model, num_heads, d_nope, d_rope, theta, q_proj_weight, kv_down_proj_weight,
                         kv_up_proj_weight, o_proj_weight, in_features, token_positions=None):
    work = torch.promote_types(in_features.dtype, torch.float32)
    x = in_features.to(work)
    seq = x.shape[-2]
    d_latent = kv_up_proj_weight.shape[1]
    d_v = kv_up_proj_weight.shape[0] // num_heads - d_nope
    positions = torch.arange(seq) if token_positions is None else token_positions
    down = x @ kv_down_proj_weight.to(work).T
    latent = down[..., :d_latent]
    k_rope = rotate(down[..., d_latent:], positions, theta)  # shared by every head
    allowed = torch.tril(torch.ones(seq, seq, dtype=torch.bool))
    out = torch.zeros(*x.shape[:-1], d_model, dtype=work)
    for h in range(num_heads):
        q_rows = q_proj_weight[h * (d_nope + d_rope):(h + 1) * (d_nope + d_rope)].to(work)
        up_rows = kv_up_proj_weight[h * (d_nope + d_v):(h + 1) * (d_nope + d_v)].to(work)
        q = x @ q_rows.T
        q_nope, q_rope = q[..., :d_nope], rotate(q[..., d_nope:], positions, theta)
        k_nope = latent @ up_rows[:d_nope].T
        v = latent @ up_rows[d_nope:].T
        scores = (q_nope @ k_nope.mT + q_rope @ k_rope.mT) / (d_nope + d_rope) ** 0.5
        weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=-1)
        out = out + (weights @ v) @ o_proj_weight[:, h * d_v:(h + 1) * d_v].to(work).T
    return out.to(in_features.dtype)
