"""The kernel rules of a Triton exercise (attnlab.core.frameworks.kernels), on real kernels in Triton's
interpreter: the reference launcher passes; a launcher computing with torch, one launching no kernel and one
whose kernel reads past its tensors are each stopped and named; bfloat16 reaching the interpreter is not
applicable; a kernel whose tile covers every key is held to the case's tile budget (max_tile_side). One call
each, on 20 × 16 inputs (the interpreter's cost is per tile operation)."""

import importlib.util

import pytest
import torch

from attnlab.core import frameworks, paths
from attnlab.core.frameworks import for_torch
from attnlab.core.frameworks.kernels import KERNELS_ONLY
from attnlab.core.impl import FileImpl, call_checked
from attnlab.core.outcomes import KernelRuleBroken, MemoryLimit, NotApplicable, SubmissionError
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

pytestmark = [pytest.mark.slow, pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                                                   reason="triton is not installed (pip install -e '.[triton]')")]
CORPUS = paths.ROOT / "tests" / "mutations" / "triton_flash_forward"
RULES = (KERNELS_ONLY,)


def run(path, dtype=torch.float32, keys=20, tile_side=None):
    for_torch.ADAPTER.prepare()  # TRITON_INTERPRET=1 here: no GPU
    fn = FileImpl(path, adapter=frameworks.default())._function("triton_flash_forward", "run_triton_flash_forward")
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 20, 16, generator=g).to(dtype), torch.randn(2, keys, 16, generator=g).to(dtype)
    return call_checked(fn, exercise="triton_flash_forward", function="run_triton_flash_forward",
                        kwargs={"Q": q, "K": k, "V": k.clone(), "is_causal": True}, forbidden_calls=RULES,
                        adapter=frameworks.default(), max_tile_side=tile_side)


def test_the_reference_kernel_passes_the_rules():
    out, lse = run(paths.ROOT / "reference" / "triton_flash_forward.py").output
    assert out.shape == (2, 20, 16) and lse.dtype == torch.float32 and torch.isfinite(out).all()


def test_a_torch_launcher_is_named_with_its_operator():
    with pytest.raises(KernelRuleBroken) as info:
        run(CORPUS / "bug_torch_launcher.py")
    assert info.value.status == Status.FORBIDDEN
    assert "computed with torch (aten." in str(info.value) and "outside a Triton kernel" in str(info.value)


def test_a_launcher_without_a_kernel_is_told_so():
    with pytest.raises(KernelRuleBroken, match="no @triton.jit kernel was launched"):
        run(CORPUS / "bug_numpy_launcher.py")


def test_an_unmasked_load_past_the_tensors_is_stopped_before_reading():
    with pytest.raises(SubmissionError, match="out-of-bounds access: mask your loads"):
        run(CORPUS / "bug_unmasked_key_loads.py", keys=21)  # the last slice's last key tile sticks out


def test_bfloat16_in_the_interpreter_is_not_applicable():
    with pytest.raises(NotApplicable, match="bit patterns"):
        run(paths.ROOT / "reference" / "triton_flash_forward.py", dtype=torch.bfloat16)


def test_a_torch_launcher_gets_no_points():
    exercise = load_course(paths.SPEC_DIR, "systems").get("triton_flash_forward")
    impl = FileImpl(CORPUS / "bug_torch_launcher.py", adapter=frameworks.default())
    result = grade_exercise(make_context(exercise, impl))
    assert (result.status, result.score) == (Status.FORBIDDEN, 0.0)
    assert "outside a Triton kernel" in result.feedback


def test_a_tile_over_the_budget_is_named_with_its_shape():
    """40 keys make a 64-key tile: over a budget of 32, within one of 64; the reference's 16 × 16 tiles pass."""
    with pytest.raises(MemoryLimit, match=r"tile of shape \(64,\) \(tl.arange\), longer than this case's budget of 32"):
        run(CORPUS / "bug_all_keys_one_tile.py", keys=40, tile_side=32)
    assert run(CORPUS / "bug_all_keys_one_tile.py", keys=40, tile_side=64).output[0].shape == (2, 20, 16)
    reference = run(paths.ROOT / "reference" / "triton_flash_forward.py", keys=40, tile_side=16)
    assert reference.output[0].shape == (2, 20, 16)
