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


def test_changed_names_exactly_the_arguments_whose_bytes_a_call_changed():
    """NaN rewritten as the same NaN is no change, -0.0 over 0.0 is one; every dtype and layout, compared
    as the fast integer view and as raw bytes (the fallback) alike."""
    from attnlab.core.inputs import changed, raw_bytes, same_bytes, snapshot

    base = torch.tensor([[0.0, float("nan"), 1.5], [2.0, -3.0, 4.0]])
    cases = {
        "float32": base.clone(), "bfloat16": base.to(torch.bfloat16), "float16": base.half(),
        "float64": base.double(), "int64": torch.arange(6).reshape(2, 3), "bool": torch.eye(2, 3, dtype=torch.bool),
        "0-dim": torch.tensor(1.0), "empty": torch.empty(0, 3), "transposed": base.t(),
        "complex64": torch.complex(base, base), "complex128": torch.complex(base.double(), base.double()),
        "conjugated": torch.complex(base, base).conj(),
    }
    args = {**cases, "k": 3}
    before = snapshot(args)
    assert changed(args, before) == []
    with torch.no_grad():
        args["float32"][0, 1] = float("nan")  # the same NaN again: no byte changed
        args["float64"][0, 0] = -0.0
        args["bool"][1, 2] = True
        args["transposed"][2, 1] = 5.0  # a view: base changes too, and was not an argument
    assert changed(args, before) == ["float64", "bool", "transposed"]
    for name, t in cases.items():
        other = t.clone().contiguous()
        if other.numel():
            flat = other.view(-1)
            flat[-1] = ~flat[-1] if t.dtype == torch.bool else flat[-1] + 1
        assert same_bytes(t, t.clone()) and same_bytes(t, t.clone()) == (raw_bytes(t) == raw_bytes(t.clone()))
        assert same_bytes(t, other) == (raw_bytes(t) == raw_bytes(other)) == (other.numel() == 0), name
    assert not same_bytes(base, base.double()) and not same_bytes(base, base.reshape(3, 2))
