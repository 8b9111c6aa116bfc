"""cross_attention: padding never matters (its law), its picture (weights with the padding columns empty) and
an example call."""

from collections.abc import Callable

import numpy as np
import torch

from attnlab.core.examples import Example, randn
from attnlab.core.i18n import Message
from attnlab.core.laws import base_args, expect_close, law, noise
from attnlab.core.pictures import HEADS, SEQ, Picture, eye, heads
from attnlab.core.pictures import randn as picture_randn
from attnlab.core.spec import Text

MESSAGES = {
    "padding_changed": {
        "en": "replacing the encoder states at the {count} padding positions (encoder_padding_mask False) with "
              "large noise changed the output; padding keys must get weight exactly 0",
        "zh": "把 {count} 个填充位置（encoder_padding_mask 为 False）上的编码器状态换成很大的噪声后，输出改变了；"
              "填充位置的键的权重必须恰好为 0"},
}


@law
def padding_states_ignored(ctx, base_case: str, scale: float = 10.0) -> None:
    """Whatever the encoder states at padding positions are, the output is the same: replace them with noise
    `scale` times larger than the real states and compare."""
    args = base_args(ctx, base_case)
    states, real = args["encoder_states"], args["encoder_padding_mask"].bool()
    noisy = torch.where(real[..., None], states, noise(states, 17) * scale)  # (..., T_enc, d_model)
    plain, changed = ctx.outputs([args, {**args, "encoder_states": noisy}])
    expect_close(ctx, changed, plain, Message("cross_attention.padding_changed", {"count": int((~real).sum())}))


PADDED = 3  # the picture's last PADDED encoder positions are padding


def _picture(call: Callable) -> np.ndarray:
    """Each head's value projection picks out one-hot encoder states and W_o = identity, so the output is
    the heads' weight matrices side by side: (T_dec = SEQ, HEADS · (T_enc = SEQ))."""
    d_model = HEADS * SEQ
    encoder = eye(SEQ).repeat(1, HEADS)  # (T_enc, d_model): head h's slice of position j is one-hot j
    real = torch.arange(SEQ) < SEQ - PADDED
    out = call(d_model=d_model, num_heads=HEADS, q_proj_weight=picture_randn(11, d_model, d_model, scale=0.5),
               k_proj_weight=picture_randn(12, d_model, d_model, scale=0.5), v_proj_weight=eye(d_model),
               o_proj_weight=eye(d_model), decoder_states=picture_randn(13, SEQ, d_model),
               encoder_states=encoder, encoder_padding_mask=real)
    return heads(out, HEADS)


PICTURE = Picture(_picture, "weights",
                  Text(en="each head's weights over the encoder tokens; the last 3 are padding: their columns "
                          "must be empty, and there is no causal triangle",
                       zh="每个头对编码器词元的权重；最后 3 个是填充：这些列必须为空，而且没有因果三角形"),
                  axes=(Text(en="encoder token (key)", zh="编码器词元（键）"),
                        Text(en="decoder position (query)", zh="解码器位置（查询）")))


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    d_model, t_dec, t_enc = 8, 5, 7
    lengths = torch.randint(1, t_enc + 1, (*lead, 1), generator=g)
    kwargs = {f"{name}_proj_weight": randn(g, d_model, d_model, dtype=dtype) * 0.5 for name in "qkvo"}
    kwargs.update(d_model=d_model, num_heads=2, decoder_states=randn(g, *lead, t_dec, d_model, dtype=dtype),
                  encoder_states=randn(g, *lead, t_enc, d_model, dtype=dtype),
                  encoder_padding_mask=torch.arange(t_enc) < lengths)  # (*lead, T_enc), real tokens first
    return Example(kwargs, ("decoder_states", "encoder_states", "encoder_padding_mask"), d_model)
