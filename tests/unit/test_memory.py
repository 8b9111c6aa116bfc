"""A case's tensor budget (max_tensor_mb): a submission that materialises a tensor over it fails with the
tensor named; one that stays in blocks passes."""

import math

import pytest
import torch

from attnlab.core import frameworks
from attnlab.core.impl import call_checked
from attnlab.core.outcomes import MemoryLimit


def materialised(Q, K, V):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])  # (..., queries, keys): the whole matrix
    return torch.softmax(scores, -1) @ V


def blocked(Q, K, V, block=256):
    rows = [materialised(Q[..., i:i + block, :], K, V) for i in range(0, Q.shape[-2], block)]
    return torch.cat(rows, dim=-2)


def call(fn, budget_mb):
    x = torch.randn(1, 2048, 16, generator=torch.Generator().manual_seed(0))
    return call_checked(fn, exercise="flash_attention", function="run_flash_attention",
                        kwargs={"Q": x, "K": x, "V": x}, forbidden_calls=(), max_tensor_mb=budget_mb,
                        adapter=frameworks.default())


def test_a_tensor_over_budget_is_named():
    with pytest.raises(MemoryLimit) as info:
        call(materialised, budget_mb=4)
    assert "float32 tensor of shape (1, 2048, 2048) (16 MB, in bmm), over this case's budget of 4 MB" in str(info.value)


def test_blocks_within_budget_pass_and_no_budget_means_no_check():
    torch.testing.assert_close(call(blocked, budget_mb=4).output, call(materialised, budget_mb=None).output)
