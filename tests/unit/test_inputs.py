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


def test_derived_arguments_are_computed_from_the_drawn_ones():
    """A backward case's O and L are the forward pass of its own Q, K, V: on the published seeds and on fresh
    ones, in the dtypes the recipe names (L float32 beside float16 inputs)."""
    import math

    from attnlab.core import paths
    from attnlab.core.inputs import build_args
    from attnlab.core.spec_load import load_exercise

    case = next(c for c in load_exercise(paths.SPEC_DIR / "triton_flash_backward.yaml").cases
                if c.name == "float16_causal")
    for args in (build_args(case), build_args(case, fresh_seed=7)):
        q, k, v = (args[name].double() for name in ("Q", "K", "V"))
        s = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        s = s.masked_fill(~torch.ones(s.shape[-2:], dtype=torch.bool).tril(), float("-inf"))
        assert list(args) == ["Q", "K", "V", "O", "L", "dO", "is_causal"]
        assert (args["O"].dtype, args["L"].dtype) == (torch.float16, torch.float32)
        assert torch.equal(args["O"], (torch.softmax(s, -1) @ v).half())
        assert torch.equal(args["L"], torch.logsumexp(s, -1).float())
    assert not torch.equal(build_args(case)["O"], build_args(case, fresh_seed=7)["O"])
