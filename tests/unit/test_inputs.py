"""Input recipes: what a spec's `mask: [...], pattern: padding` builds."""

import torch

from attnlab.core.inputs import build_arg
from attnlab.core.spec import ArgRecipe


def test_padding_masks_put_real_tokens_first_and_pad_every_row_but_the_longest():
    for seed in range(20):
        mask = build_arg(ArgRecipe(kind="mask", shape=(2, 3, 7), dtype="bool", pattern="padding"), seed=seed)
        assert mask.shape == (2, 3, 7) and mask.dtype == torch.bool
        lengths = mask.sum(-1).flatten()
        assert torch.equal(mask, torch.arange(7) < mask.sum(-1, keepdim=True))  # no gaps: a prefix of real tokens
        assert lengths[-1] == 7 and bool((lengths[:-1] >= 3).all()) and bool((lengths[:-1] <= 6).all())


def test_a_padding_mask_of_one_row_has_at_least_one_real_token():
    mask = build_arg(ArgRecipe(kind="mask", shape=(5,), dtype="float32", pattern="padding"), seed=3)
    assert mask.dtype == torch.float32 and 2 <= int(mask.sum()) <= 4 and mask[0] == 1.0
