"""MindSpore 2.10's float32 exp on the CPU is off by up to 7e-6 relative (torch's and NumPy's by about 1e-7), so
frequencies written exp(−2i·ln(base)/d) are off by up to 2.3e-6, and angles p·ω at the positions the cases
use by up to 1e-2 rad. The sinusoidal encoding and RoPE give MindSpore its own float32 tolerance for that
(spec `tolerance: mindspore:`); these tests measure the error over the ranges the specs' `why` names and
check that the tolerance covers it, and that the general one would not (when it does, MindSpore's exp got
accurate and the override can go). The corpus entries written that way are
tests/mutations/{sinusoidal_positional_encoding,rope}/mindspore/alt_{annotated_transformer,exp_log_frequencies}.py.
"""

import math

import numpy as np
import pytest

from attnlab.core import frameworks, paths
from attnlab.core.spec_load import load_course

pytestmark = pytest.mark.skipif(not frameworks.adapter("mindspore").available(),
                                reason="mindspore is not installed here (scripts/venv-mindspore makes .venv-mindspore)")

COURSE = load_course(paths.SPEC_DIR)
BASES = (500.0, 1000.0, 2000.0, 1e4, 1e5, 1e6)  # the specs' range: 500 to 1e6


@pytest.fixture(scope="module")
def ms():
    frameworks.adapter("mindspore").prepare()  # PyNative on the CPU, as the runner has it
    import mindspore

    return mindspore


def worst_angle_error(ms, widths, position: int) -> float:
    """The largest |p·ω − p·ω_exact| (rad) at |p| = position over every width and base, with ω from
    MindSpore's float32 exp(−2i·ln(base)/d) and the product rounded to float32, as the recipe computes it."""
    from mindspore import ops

    exponents, exact = [], []
    for d in widths:
        for base in BASES:
            i = np.arange(0, d, 2, dtype=np.float32)
            exponents.append(i * np.float32(-(math.log(base) / d)))  # float32, as ops.arange(...) * float is
            exact.append(base ** (-i.astype(np.float64) / d))
    frequencies = ops.exp(ms.Tensor(np.concatenate(exponents))).asnumpy()  # one call: one kernel
    angles = np.float32(position) * frequencies  # IEEE float32 product, as MindSpore's Mul
    return float(np.abs(angles.astype(np.float64) - position * np.concatenate(exact)).max())


def tolerances(exercise: str, dtype: str):
    spec = COURSE.find(exercise)
    return spec.tolerance[dtype], spec.in_framework("mindspore").tolerance[dtype]


def test_mindspore_sinusoidal_encoding_tolerance_covers_its_float32_exp(ms):
    """Outputs are sin/cos of the angles: their error is at most the angle's (|p| ≤ 8192, d_model ≤ 512)."""
    general, own = tolerances("sinusoidal_positional_encoding", "float32")
    error = worst_angle_error(ms, range(1, 513), 8192)
    assert error < own.atol, f"exp recipe off by {error:.3g} rad, mindspore's atol is {own.atol}"
    assert error > general.atol, f"MindSpore's exp is accurate now ({error:.3g} rad): drop the mindspore tolerance"


@pytest.mark.parametrize("dtype", ["float32", "float64"])  # float64 inputs may use a float32 table
def test_mindspore_rope_tolerance_covers_its_float32_exp(ms, dtype):
    """A rotated pair is off by its norm times the angle's error: values up to 4 (the spec's why),
    positions up to 4095, d_k up to 128."""
    general, own = tolerances("rope", dtype)
    error = 4 * worst_angle_error(ms, range(2, 129, 2), 4095)
    assert error < own.atol, f"exp recipe off by {error:.3g} on values up to 4, mindspore's atol is {own.atol}"
    assert error > general.atol, f"MindSpore's exp is accurate now ({error:.3g}): drop the mindspore tolerance"
