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
