"""The pytest plugin with --framework numpy, as a NumPy course's students run it: the NumPy reference
passes, and the gradient law (NumPy has no autograd) is skipped with its reason, not failed."""

import pytest

from attnlab.core import frameworks, paths

pytestmark = pytest.mark.slow  # starts pytest in a subprocess, on one core: beside the in-process tests


def test_the_numpy_reference_passes_and_the_gradient_law_is_skipped_as_not_applicable(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(paths.ROOT))  # this checkout's attnlab, wherever pytester runs
    result = pytester.runpytest_subprocess(str(paths.SPEC_DIR), "-q", "-p", "no:cacheprovider", "-rs",
                                           "--framework", "numpy",
                                           "--impl", str(paths.reference_dir(frameworks.adapter("numpy"))),
                                           "-m", "softmax or rope")
    out = result.stdout.str()
    assert result.ret == 0, out
    assert out.count("not applicable in numpy: it has no automatic differentiation") == 2
    table = out.split("points by exercise", 1)[1]
    assert "8.00 / 8" in table and "10.00 / 10" in table
