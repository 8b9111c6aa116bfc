"""In the runner a case's tensor budget also lowers the address-space limit around the call: a tensor far
over the budget cannot even be allocated, and the failure still names it."""

import pytest
import torch

from attnlab.core.outcomes import MemoryLimit

pytestmark = pytest.mark.e2e  # starts runners, grade.py, browsers or pytest processes

NAIVE = """
import math, torch
def run_flash(Q, K, V):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores, -1) @ V
"""


def test_a_materialised_scores_matrix_fails_to_allocate_and_is_named(make_submission, remote):
    package, _ = make_submission({"flash.py": NAIVE})
    impl = remote(package)
    x = torch.zeros(1, 16384, 16)  # scores: 16384² float32 = 1 GiB, far over the 64 MB budget
    [got] = impl.call_many(exercise="flash", module="flash", function="run_flash", calls=[{"Q": x, "K": x, "V": x}],
                           forbidden_calls=(), budgets=[64])
    assert isinstance(got, MemoryLimit), str(got)
    assert "shape (1, 16384, 16384) (1024 MB, in bmm)" in str(got) and "budget of 64 MB" in str(got)
    [small] = impl.call_many(exercise="flash", module="flash", function="run_flash",
                             calls=[{"Q": x[:, :64], "K": x[:, :64], "V": x[:, :64]}], forbidden_calls=(), budgets=[64])
    assert small.output.shape == (1, 64, 16)  # the runner survived, and its limit is back
