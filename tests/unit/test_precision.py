"""The precision diagnosis (attnlab.core.precision): a float64 output right but for float32 rounding is named
as such, before any misconception; a real mistake, a float32 output or a wrong second output is not."""

import torch

from attnlab.core import paths
from attnlab.core.diagnose import diagnose
from attnlab.core.precision import FLOAT32_PRECISION, lost_to_float32
from attnlab.core.spec_load import load_course

KV = load_course(paths.SPEC_DIR, "modern").find("kv_cache_attention")  # three outputs; float32 rtol 1e-4
EXPECTED = tuple(torch.randn(2, 5, 4, generator=torch.Generator().manual_seed(s), dtype=torch.float64)
                 for s in range(3))


def rounded(t: torch.Tensor) -> torch.Tensor:
    return t.float().double()  # what a float32 step leaves in a float64 result


def test_float32_rounding_of_one_float64_output_is_named():
    got = (rounded(EXPECTED[0]), EXPECTED[1].clone(), EXPECTED[2].clone())
    assert lost_to_float32(KV, got, EXPECTED)
    found = diagnose(KV, {}, got, expected=EXPECTED, stored={})
    assert found.id == FLOAT32_PRECISION and "float32 precision" in found.message.en


def test_a_real_mistake_or_another_dtype_is_not_precision():
    assert not lost_to_float32(KV, (EXPECTED[0] + 1e-3, *EXPECTED[1:]), EXPECTED)  # beyond float32's error
    assert not lost_to_float32(KV, (rounded(EXPECTED[0]), -EXPECTED[1], EXPECTED[2]), EXPECTED)  # a wrong cache
    assert not lost_to_float32(KV, tuple(t.float() for t in EXPECTED), tuple(t.float() for t in EXPECTED))
    assert not lost_to_float32(KV, EXPECTED, EXPECTED)  # nothing is off
    assert not lost_to_float32(KV, (rounded(EXPECTED[0]).fill_(float("nan")), *EXPECTED[1:]), EXPECTED)
    assert not lost_to_float32(KV, (rounded(EXPECTED[0])[:1], *EXPECTED[1:]), EXPECTED)  # another shape
    assert not lost_to_float32(KV, EXPECTED, None)  # a case that compares no values


def test_a_mistake_that_changes_nothing_here_is_not_the_cause():
    """On an H100 the reference's compiled backward missed its tolerance by a hair on one value, and was told
    its causal offset was wrong: in that non-causal case the causal-offset mistake gives the right answer, so
    it 'matched'. A misconception whose output equals the expected one on a case is never its cause."""
    from attnlab.core.compare import tolerance_for

    atol = tolerance_for(KV.tolerance, torch.float32).atol
    expected = tuple(torch.zeros(2, 5, 4, dtype=torch.float64) for _ in range(3))  # allowed error: atol alone
    harmless, other = KV.misconceptions[0], KV.misconceptions[1]
    near_expected = tuple((t + 0.6 * atol).float() for t in expected)  # the mistake changes nothing here
    got = tuple((t + 1.2 * atol).float() for t in expected)  # just outside the tolerance, near that output
    assert diagnose(KV, {}, got, expected=expected, stored={harmless.id: near_expected}) is None
    assert diagnose(KV, {}, got, expected=expected, stored={harmless.id: near_expected, other.id: got}) is other
    assert diagnose(KV, {}, got, stored={harmless.id: near_expected}) is harmless  # nothing to tell them apart
