"""grouped_query_attention: its law (GQA is MHA with each kv head's weights repeated for its group), its
picture (heads that share a kv head attend alike) and an example."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, expect_close, law
from attnlab.core.pictures import SEQ, Picture, heads
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "duplicated": {
        "en": "num_heads={num_heads}, num_kv_heads={num_kv_heads}: the output differs from the same call with "
              "num_kv_heads={num_heads} and each kv head's rows of k_proj_weight and v_proj_weight repeated for "
              "the {group} consecutive query heads of its group (multi-head attention)",
        "zh": "num_heads={num_heads}，num_kv_heads={num_kv_heads}：输出与下面这次调用不同——num_kv_heads={num_heads}，"
              "并把 k_proj_weight 和 v_proj_weight 中每个键/值头的行为其组内 {group} 个相邻查询头各重复一次"
              "（即多头注意力）"},
}


def _per_query_head(weight: torch.Tensor, num_kv_heads: int, group: int) -> torch.Tensor:
    """(num_kv_heads·d_head, d_model) -> (num_heads·d_head, d_model): kv head g's rows once for each query
    head of group g, in order g, g, ..., g+1, ..."""
    rows = weight.unflatten(0, (num_kv_heads, -1))  # (kv_heads, d_head, d_model)
    return rows.repeat_interleave(group, dim=0).flatten(0, 1)  # (heads·d_head, d_model)


@law
def duplicated_kv_heads_equal_mha(ctx, base_case: str) -> None:
    """Giving every query head its own copy of its group's kv head (k/v weights repeated per group, called
    with num_kv_heads = num_heads) changes nothing: GQA is MHA whose kv heads are tied within groups."""
    args = base_args(ctx, base_case)
    num_heads, num_kv_heads = args["num_heads"], args["num_kv_heads"]
    group = num_heads // num_kv_heads
    tied = {**args, "num_kv_heads": num_heads,
            "k_proj_weight": _per_query_head(args["k_proj_weight"], num_kv_heads, group),
            "v_proj_weight": _per_query_head(args["v_proj_weight"], num_kv_heads, group)}
    grouped, as_mha = ctx.outputs([args, tied])
    expect_close(ctx, grouped, as_mha, Message("grouped_query_attention.duplicated",
                                               {"num_heads": num_heads, "num_kv_heads": num_kv_heads,
                                                "group": group}))


NUM_HEADS, NUM_KV_HEADS = 4, 2  # the picture: two groups of two query heads, d_head = SEQ


def _picture(call: Callable) -> np.ndarray:
    """Every query head gets the same queries, so heads differ only by the kv head they use: the tokens are
    one-hot (in_features = [I 0]), each kv head's values are the identity and W_o = I, so the output holds
    one weight matrix per query head."""
    d_model = NUM_HEADS * SEQ
    one_hot = torch.cat([torch.eye(SEQ), torch.zeros(SEQ, d_model - SEQ)], dim=1).double()  # (seq, d_model)
    same_queries = picture_randn(21, SEQ, d_model).repeat(NUM_HEADS, 1)  # (heads·d_head, d_model)
    out = call(d_model=d_model, num_heads=NUM_HEADS, num_kv_heads=NUM_KV_HEADS, q_proj_weight=same_queries,
               k_proj_weight=picture_randn(22, NUM_KV_HEADS * SEQ, d_model),
               v_proj_weight=one_hot.repeat(NUM_KV_HEADS, 1), o_proj_weight=torch.eye(d_model).double(),
               in_features=one_hot)
    return heads(out, NUM_HEADS)


PICTURE = Picture(_picture, "weights", Text(
    en="4 query heads with the same queries, 2 kv heads: heads 0-1 share kv head 0 and heads 2-3 kv head 1, "
       "so their weights match in pairs (V and the output projection are identities)",
    zh="4 个查询头的查询相同，2 个键/值头：头 0-1 共享键/值头 0，头 2-3 共享键/值头 1，因此权重两两相同"
       "（V 与输出投影均为单位矩阵）"))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    d_model, kv_dim = 8, 4  # 4 heads of d_head 2, 2 kv heads
    kwargs = {"d_model": d_model, "num_heads": 4, "num_kv_heads": 2,
              "q_proj_weight": randn(g, d_model, d_model, dtype=dtype),
              "k_proj_weight": randn(g, kv_dim, d_model, dtype=dtype),
              "v_proj_weight": randn(g, kv_dim, d_model, dtype=dtype),
              "o_proj_weight": randn(g, d_model, d_model, dtype=dtype),
              "in_features": randn(g, *lead, 5, d_model, dtype=dtype)}
    return Example(kwargs, ("in_features",), d_model, causal=True)
