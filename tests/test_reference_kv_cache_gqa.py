"""The reference's kv_cache_attention and grouped_query_attention against PyTorch's own kernels and against
each other's definitions: a cache fed back step by step, GQA at its two ends (MHA, MQA), and the facts the
misconception messages state (is_causal aligns its diagonal to key 0; .repeat tiles kv heads)."""

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from attnlab.core import paths
from attnlab.core.exercises import code_for
from reference.grouped_query_attention import run_grouped_query_attention
from reference.kv_cache_attention import run_kv_cache_attention
from reference.misconceptions import grouped_query_attention as gqa_wrong
from reference.misconceptions import kv_cache_attention as kv_wrong
from reference.multihead import run_multihead_self_attention


def qkv(*lead: int, seq: int, d: int, dtype=torch.float64, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(*lead, seq, d, generator=g, dtype=dtype) for _ in range(3))


def empty_cache(like: torch.Tensor) -> torch.Tensor:
    return like[..., :0, :].clone()


def test_decoding_with_the_returned_caches_equals_one_causal_pass():
    Q, K, V = qkv(2, 3, seq=7, d=8)
    k_cache, v_cache = empty_cache(K), empty_cache(V)
    steps = []
    for t in range(7):
        out, k_cache, v_cache = run_kv_cache_attention(Q[..., t:t + 1, :], K[..., t:t + 1, :], V[..., t:t + 1, :],
                                                       k_cache, v_cache)
        steps.append(out)
    torch.testing.assert_close(torch.cat(steps, dim=-2), F.scaled_dot_product_attention(Q, K, V, is_causal=True))
    assert torch.equal(k_cache, K) and torch.equal(v_cache, V)


@pytest.mark.parametrize("t_past, t_new", [(0, 5), (4, 3), (2, 7), (9, 1)])
def test_matches_sdpa_with_the_shifted_causal_mask(t_past, t_new):
    Q, K, V = qkv(2, seq=t_new, d=6, seed=1)
    k_cache, v_cache, _ = qkv(2, seq=t_past, d=6, seed=2)
    allowed = torch.ones(t_new, t_past + t_new, dtype=torch.bool).tril(diagonal=t_past)
    keys, values = torch.cat([k_cache, K], dim=-2), torch.cat([v_cache, V], dim=-2)
    out, new_k, new_v = run_kv_cache_attention(Q, K, V, k_cache, v_cache)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(Q, keys, values, attn_mask=allowed))
    assert torch.equal(new_k, keys) and torch.equal(new_v, values)


def test_is_causal_aligns_to_key_zero_which_is_the_mask_not_offset_misconception():
    Q, K, V = qkv(3, seq=3, d=4, seed=3)
    k_cache, v_cache, _ = qkv(3, seq=4, d=4, seed=4)
    keys, values = torch.cat([k_cache, K], dim=-2), torch.cat([v_cache, V], dim=-2)
    wrong, _, _ = kv_wrong.mask_not_offset(Q, K, V, k_cache, v_cache)
    torch.testing.assert_close(wrong, F.scaled_dot_product_attention(Q, keys, values, is_causal=True))
    assert not torch.allclose(wrong, run_kv_cache_attention(Q, K, V, k_cache, v_cache)[0])


def test_arguments_untouched_and_caches_are_new_tensors():
    Q, K, V = qkv(2, seq=1, d=4, dtype=torch.float32, seed=5)
    k_cache, v_cache = empty_cache(K), empty_cache(V)
    before = [x.clone() for x in (Q, K, V, k_cache, v_cache)]
    out, new_k, new_v = run_kv_cache_attention(Q, K, V, k_cache, v_cache)
    assert all(torch.equal(x, y) for x, y in zip((Q, K, V, k_cache, v_cache), before))
    assert new_k.data_ptr() != K.data_ptr() and new_v.data_ptr() != V.data_ptr()
    torch.testing.assert_close(out, V)  # one key: all the weight on it
    assert {t.dtype for t in (out, new_k, new_v)} == {torch.float32}


def test_kv_cache_bfloat16_close_to_float64():
    Q, K, V = qkv(2, seq=3, d=8, dtype=torch.bfloat16, seed=6)
    k_cache, v_cache, _ = qkv(2, seq=5, d=8, dtype=torch.bfloat16, seed=7)
    low = run_kv_cache_attention(Q, K, V, k_cache, v_cache)
    high = run_kv_cache_attention(*(x.double() for x in (Q, K, V, k_cache, v_cache)))
    for a, b in zip(low, high):
        assert a.dtype == torch.bfloat16
        torch.testing.assert_close(a.double(), b, atol=5e-2, rtol=5e-2)


def gqa_args(*lead: int, seq: int = 6, d_model: int = 16, heads: int = 4, kv_heads: int = 2, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    kv_dim = kv_heads * d_model // heads

    def w(*shape):
        return torch.randn(*shape, generator=g, dtype=torch.float64) * d_model ** -0.5

    return {"d_model": d_model, "num_heads": heads, "num_kv_heads": kv_heads, "q_proj_weight": w(d_model, d_model),
            "k_proj_weight": w(kv_dim, d_model), "v_proj_weight": w(kv_dim, d_model),
            "o_proj_weight": w(d_model, d_model),
            "in_features": torch.randn(*lead, seq, d_model, generator=g, dtype=torch.float64)}


def test_gqa_with_as_many_kv_heads_as_heads_is_multihead_self_attention():
    args = gqa_args(2, heads=4, kv_heads=4)
    mha = {k: v for k, v in args.items() if k != "num_kv_heads"}
    torch.testing.assert_close(run_grouped_query_attention(**args), run_multihead_self_attention(**mha))


@pytest.mark.parametrize("heads, kv_heads", [(4, 1), (4, 2), (6, 3), (8, 2), (4, 4)])
def test_gqa_matches_sdpa_enable_gqa(heads, kv_heads):
    args = gqa_args(3, d_model=24, heads=heads, kv_heads=kv_heads, seed=heads + kv_heads)
    x = args["in_features"]

    def heads_of(w, n):  # (3, seq, n·d_head) -> (3, n, seq, d_head)
        return F.linear(x, w).unflatten(-1, (n, -1)).transpose(1, 2)

    q = heads_of(args["q_proj_weight"], heads)
    k, v = heads_of(args["k_proj_weight"], kv_heads), heads_of(args["v_proj_weight"], kv_heads)
    y = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)  # repeats kv heads per group
    expected = F.linear(y.transpose(1, 2).flatten(-2), args["o_proj_weight"])
    torch.testing.assert_close(run_grouped_query_attention(**args), expected)


def test_repeat_tiles_kv_heads_as_the_modulo_misconception_says():
    k = torch.arange(2.0).reshape(2, 1, 1)  # kv heads 0 and 1
    assert k.repeat(2, 1, 1).flatten().tolist() == [0, 1, 0, 1]  # head h gets kv head h % 2
    assert k.repeat_interleave(2, dim=0).flatten().tolist() == [0, 0, 1, 1]  # head h gets kv head h // 2
    args = gqa_args(2, heads=4, kv_heads=2, seed=9)
    assert not torch.allclose(gqa_wrong.kv_head_modulo(**args), run_grouped_query_attention(**args))


def test_pictures_show_the_growing_mask_and_the_head_groups():
    kv = code_for(paths.SPEC_DIR, "kv_cache_attention").picture.compute(run_kv_cache_attention)[0]
    rows, cols = np.tril_indices(kv.shape[0])
    assert np.allclose(np.triu(kv, 1), 0.0) and (kv[rows, cols] > 0).all() and np.allclose(kv.sum(-1), 1.0)
    wrong = code_for(paths.SPEC_DIR, "kv_cache_attention").picture.compute(kv_wrong.mask_not_offset)[0]
    assert np.allclose(wrong[-1], np.eye(kv.shape[0])[0])  # a decoding step that sees key 0 only

    picture = code_for(paths.SPEC_DIR, "grouped_query_attention").picture
    heads = picture.compute(run_grouped_query_attention)  # (4 query heads, seq, seq); 2 kv heads
    assert np.allclose(heads[0], heads[1]) and np.allclose(heads[2], heads[3])
    assert not np.allclose(heads[0], heads[2])
    tiled = picture.compute(gqa_wrong.kv_head_modulo)
    assert np.allclose(tiled[0], tiled[2]) and not np.allclose(tiled[0], tiled[1])
