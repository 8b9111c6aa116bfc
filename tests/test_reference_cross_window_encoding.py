"""The references of sinusoidal_positional_encoding, cross_attention and sliding_window_attention against
independent computations: the paper's formula by hand, torch.nn.MultiheadAttention with a key padding mask,
and F.scaled_dot_product_attention with a band mask."""

import math

import torch
import torch.nn.functional as F
from torch import nn

from reference.cross_attention import run_cross_attention
from reference.sinusoidal_positional_encoding import run_sinusoidal_positional_encoding
from reference.sliding_window_attention import run_sliding_window_attention


def test_encoding_is_the_papers_formula_column_by_column():
    positions = torch.tensor([[0, 3, -7], [250, 8191, 1]])
    for d_model in (1, 6, 7):
        out = run_sinusoidal_positional_encoding(positions, d_model, base=500.0)
        assert out.dtype == torch.float32 and out.shape == (2, 3, d_model)
        for index in ((0, 1), (1, 1), (0, 2)):
            p = int(positions[index])
            expected = [math.sin(p / 500.0 ** (j / d_model)) if j % 2 == 0 else
                        math.cos(p / 500.0 ** ((j - 1) / d_model)) for j in range(d_model)]
            torch.testing.assert_close(out[index], torch.tensor(expected, dtype=torch.float32), atol=1e-6, rtol=0)


def test_encoding_defaults_to_base_10000_and_starts_with_sin_cos_of_p():
    out = run_sinusoidal_positional_encoding(torch.arange(4), 8)
    torch.testing.assert_close(out, run_sinusoidal_positional_encoding(torch.arange(4), 8, base=10000.0))
    torch.testing.assert_close(out[:, 0], torch.arange(4).float().sin())
    torch.testing.assert_close(out[:, 1], torch.arange(4).float().cos())
    torch.testing.assert_close(out[0], torch.tensor([0.0, 1.0] * 4))


def _cross_args(batch=(3,), t_dec=4, t_enc=6, d_model=8, num_heads=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    kwargs = {f"{n}_proj_weight": torch.randn(d_model, d_model, generator=g) * 0.4 for n in "qkvo"}
    kwargs.update(d_model=d_model, num_heads=num_heads,
                  decoder_states=torch.randn(*batch, t_dec, d_model, generator=g),
                  encoder_states=torch.randn(*batch, t_enc, d_model, generator=g))
    lengths = torch.randint(1, t_enc + 1, (*batch, 1), generator=g)
    kwargs["encoder_padding_mask"] = torch.arange(t_enc) < lengths
    return kwargs


def test_cross_attention_equals_nn_multihead_attention_with_a_key_padding_mask():
    kwargs = _cross_args()
    mha = nn.MultiheadAttention(8, 2, bias=False, batch_first=True)
    with torch.no_grad():
        mha.in_proj_weight.copy_(torch.cat([kwargs[f"{n}_proj_weight"] for n in "qkv"]))
        mha.out_proj.weight.copy_(kwargs["o_proj_weight"])
        expected, _ = mha(kwargs["decoder_states"], kwargs["encoder_states"], kwargs["encoder_states"],
                          key_padding_mask=~kwargs["encoder_padding_mask"], need_weights=False)
    torch.testing.assert_close(run_cross_attention(**kwargs), expected)


def test_cross_attention_without_padding_is_sdpa_per_head():
    kwargs = _cross_args(batch=(), seed=1)
    kwargs["encoder_padding_mask"] = torch.ones(6, dtype=torch.bool)
    q, k, v = (F.linear(kwargs[s], kwargs[f"{n}_proj_weight"]).view(-1, 2, 4).transpose(0, 1)
               for n, s in (("q", "decoder_states"), ("k", "encoder_states"), ("v", "encoder_states")))
    heads = F.scaled_dot_product_attention(q, k, v)  # (2, T_dec, 4), no mask: nothing is causal
    expected = F.linear(heads.transpose(0, 1).reshape(4, 8), kwargs["o_proj_weight"])
    torch.testing.assert_close(run_cross_attention(**kwargs), expected)


def test_sliding_window_equals_sdpa_with_a_band_mask():
    g = torch.Generator().manual_seed(2)
    q, k, v = (torch.randn(2, 3, 10, d, generator=g) for d in (4, 4, 5))
    i, j = torch.arange(10)[:, None], torch.arange(10)[None, :]
    for window in (1, 2, 3, 9, 10, 25):
        band = (j <= i) & (i - j < window)
        expected = F.scaled_dot_product_attention(q, k, v, attn_mask=band)
        torch.testing.assert_close(run_sliding_window_attention(q, k, v, window), expected)
    torch.testing.assert_close(run_sliding_window_attention(q, k, v, 10),
                               F.scaled_dot_product_attention(q, k, v, is_causal=True))
    torch.testing.assert_close(run_sliding_window_attention(q, k, v, 1), v)


def test_sliding_window_counts_the_query_itself():
    q = k = torch.zeros(6, 2)  # equal scores: each row averages the values it may see
    v = torch.arange(6.0)[:, None]
    out = run_sliding_window_attention(q, k, v, window=3)[:, 0]
    torch.testing.assert_close(out, torch.tensor([0.0, 0.5, 1.0, 2.0, 3.0, 4.0]))
