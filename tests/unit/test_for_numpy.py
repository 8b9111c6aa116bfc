"""The NumPy adapter (attnlab.core.frameworks.for_numpy): what a NumPy submission receives, what it may
return, and its forbidden-call guard, however the forbidden function is reached."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import torch

from attnlab.core import frameworks, paths
from attnlab.core.forbidden import resolve
from attnlab.core.impl import FileImpl, call_checked
from attnlab.core.outcomes import ForbiddenCall, SubmissionError
from attnlab.core.spec_load import load_course

ADAPTER = frameworks.adapter("numpy")
COURSE = load_course(paths.SPEC_DIR)
pytestmark = pytest.mark.skipif(not ADAPTER.available(), reason="numpy is not installed here")


def call(tmp_path, source: str, kwargs: dict, *, exercise="softmax", function="run_softmax"):
    """One call of `function` from a file holding `source`, through the same path as every check."""
    path = tmp_path / f"{function}_{abs(hash(source))}.py"
    path.write_text(textwrap.dedent(source))
    fn = FileImpl(path, adapter=frameworks.adapter("numpy"))._function("?", function)
    return call_checked(fn, exercise=exercise, function=function, kwargs=kwargs,
                        forbidden_calls=COURSE.get(exercise).forbidden, adapter=frameworks.adapter("numpy"))


def test_arguments_arrive_as_numpy_with_their_dtype_strides_and_values():
    x = torch.randn(4, 3, dtype=torch.float32).T  # transposed: not contiguous
    converted = ADAPTER.to_framework({"x": x, "b": torch.randn(3).to(torch.bfloat16), "n": 3,
                                      "generator": torch.Generator().manual_seed(7), "device": torch.device("cpu")})
    assert isinstance(converted["x"], np.ndarray) and converted["x"].dtype == np.float32
    assert not converted["x"].flags.c_contiguous and np.array_equal(converted["x"], x.numpy())
    assert converted["b"].dtype.name == "bfloat16" and converted["n"] == 3 and converted["device"] is None
    assert isinstance(converted["generator"], np.random.Generator)
    again = ADAPTER.to_framework({"generator": torch.Generator().manual_seed(7)})["generator"]
    assert converted["generator"].random() == again.random()  # the same seed, the same draws


def test_bfloat16_goes_there_and_back_bit_for_bit():
    t = torch.randn(5, 7).to(torch.bfloat16)
    back = ADAPTER.to_torch(ADAPTER.array(t), "f")
    assert back.dtype == torch.bfloat16 and torch.equal(back, t)


def test_outputs_are_copies_a_list_is_a_tuple_and_a_tensor_is_named_wrong():
    a = np.ones((2, 3), np.float32)
    out = ADAPTER.to_torch(a, "f")
    a[0, 0] = 5
    assert out[0, 0] == 1  # a copy: later changes to the array do not reach the checks
    assert isinstance(ADAPTER.to_torch([a, a], "f"), tuple)
    with pytest.raises(SubmissionError) as raised:
        ADAPTER.to_torch(torch.ones(2), "run_softmax")
    assert "expected a numpy.ndarray" in str(raised.value)


@pytest.mark.parametrize("array", [np.array(["a"]), np.array([object()]), np.ones(2, np.longdouble)],
                         ids=["str", "object", "longdouble"])
def test_a_dtype_torch_cannot_hold_is_the_students_error_named_in_numpy_terms(array):
    with pytest.raises(SubmissionError) as raised:
        ADAPTER.to_torch(array, "run_softmax")
    assert f"numpy.ndarray of dtype {array.dtype.name}" in str(raised.value)


def test_a_masked_array_reads_nan_where_masked_not_the_data_underneath():
    masked = np.ma.masked_array([1.0, 2.0, 3.0], mask=[False, True, False])
    out = ADAPTER.to_torch(masked, "f")
    assert out[0] == 1 and torch.isnan(out[1]) and out[2] == 3


@pytest.mark.parametrize(("body", "aliased"), [
    ("in_features", True), ("in_features.reshape(in_features.shape)", True), ("in_features[...]", True),
    ("in_features.astype(in_features.dtype, copy=False)", True), ("in_features.copy()", False)])
def test_returning_the_input_or_a_view_of_it_is_reported(tmp_path, body, aliased):
    returned = call(tmp_path, f"def run_softmax(in_features, dim):\n    return {body}\n",
                    {"in_features": torch.randn(3, 4), "dim": -1})
    assert returned.aliases == (("in_features",) if aliased else ())


def test_an_input_changed_in_place_is_reported_and_changed_for_the_caller(tmp_path):
    x = torch.randn(3, 4)
    original = x.clone()
    returned = call(tmp_path, """
        import numpy as np
        def run_softmax(in_features, dim):
            in_features -= in_features.max(axis=dim, keepdims=True)
            e = np.exp(in_features)
            return e / e.sum(axis=dim, keepdims=True)
        """, {"in_features": x, "dim": -1})
    assert returned.modified == ("in_features",)
    assert torch.allclose(x, original - original.amax(-1, keepdim=True))


ROUTES = {  # how a submission reaches scipy's softmax: every route is caught
    "module attribute": "import scipy.special\nf = lambda x: scipy.special.softmax(x, axis=-1)",
    "alias": "import scipy.special as S\nf = lambda x: S.softmax(x, axis=-1)",
    "from import": "from scipy.special import softmax\nf = lambda x: softmax(x, axis=-1)",
    "from import renamed": "from scipy.special import softmax as sm\nf = lambda x: sm(x, axis=-1)",
    "built name": "import scipy.special\nf = lambda x: getattr(scipy.special, 'soft' + 'max')(x, axis=-1)",
    "log_softmax": "import numpy as np\nfrom scipy import special\nf = lambda x: np.exp(special.log_softmax(x, -1))",
    "caught and swallowed": """
        from scipy.special import softmax
        import numpy as np
        def f(x):
            try:
                return softmax(x, axis=-1)
            except Exception:
                e = np.exp(x - x.max(axis=-1, keepdims=True))
                return e / e.sum(axis=-1, keepdims=True)
        """,
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_forbidden_scipy_call_is_caught_however_it_is_reached(tmp_path, route):
    pytest.importorskip("scipy.special")
    source = textwrap.dedent(ROUTES[route]) + "\ndef run_softmax(in_features, dim):\n    return f(in_features)\n"
    with pytest.raises(ForbiddenCall) as raised:
        call(tmp_path, source, {"in_features": torch.randn(3, 4), "dim": -1})
    assert raised.value.call.startswith("scipy.special.")


def test_the_guard_is_lifted_after_the_call():
    special = pytest.importorskip("scipy.special")
    with pytest.raises(ForbiddenCall):
        with ADAPTER.guard("softmax", COURSE.get("softmax").forbidden):
            special.softmax(np.ones(3))
    assert np.allclose(special.softmax(np.ones(3)), 1 / 3)


def test_every_forbidden_name_numpy_owns_resolves():
    """A misspelt name would guard nothing (swap.py skips what does not resolve): each must exist."""
    pytest.importorskip("scipy.special")
    owned = {name for exercise in COURSE.all_coded for name in exercise.forbidden if ADAPTER.owns(name)}
    assert owned >= {"scipy.special.softmax", "scipy.special.log_softmax"}
    for name in owned:
        assert callable(resolve(name)), name


LAZY = """
import sys, tempfile, pathlib, torch
from attnlab.core import frameworks, paths
from attnlab.core.impl import InProcessImpl
from attnlab.core.spec_load import load_course
course = load_course(paths.SPEC_DIR, framework="numpy")
package = pathlib.Path(tempfile.mkdtemp())
(package / "__init__.py").write_text("")
(package / "softmax.py").write_text("def run_softmax(in_features, dim):\\n    from scipy.special import softmax\\n"
                                    "    return softmax(in_features, axis=dim)\\n")
# the course's import list (numpy, its libraries), or none at all (the mutation corpus, a notebook)
impl = InProcessImpl(package, libraries=course.libraries if sys.argv[1] == "course" else None,
                     adapter=frameworks.adapter("numpy"))
outcome = next(impl.call_many(exercise="softmax", module="softmax", function="run_softmax",
                              calls=[{"in_features": torch.ones(2, 3), "dim": -1}],
                              forbidden_calls=course.get("softmax").forbidden))
print(type(outcome).__name__, getattr(outcome, "call", ""), "scipy.special" in sys.modules)
"""


@pytest.mark.slow  # imports scipy.special (seconds)
def test_scipy_imported_inside_the_function_is_caught_on_the_first_call_where_it_may_be_imported():
    pytest.importorskip("scipy.special")

    def run(mode):
        done = subprocess.run([sys.executable, "-c", LAZY, mode], capture_output=True, text=True, cwd=paths.ROOT,
                              timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout.strip()

    assert run("any") == "ForbiddenCall scipy.special.softmax True"
    # a course without scipy: its import fails plainly, and no time or memory goes into loading scipy
    assert run("course") == "SubmissionError  False"


def test_the_memory_budget_names_the_line_that_made_too_much_and_lets_tiles_through():
    """NumPy's budget (line_memory.py): one line making a 64 MB array fails, named by its file and line;
    a loop making many 1 MB tiles, each freed, passes; a trace function set before the call is restored."""
    import sys

    from attnlab.core.frameworks.line_memory import line_budget
    from attnlab.core.outcomes import MemoryLimit

    def big():
        return np.ones((4096, 4096), dtype=np.float32).sum()

    def tiles():
        total = 0.0
        for _ in range(64):
            total += np.ones((512, 512), dtype=np.float32).sum()
        return total

    here = lambda filename: filename == __file__  # noqa: E731 -- the "student's" code is this file
    previous = sys.gettrace()
    with line_budget("flash_attention", 8, "numpy", here):
        assert tiles() == 64 * 512 * 512
    with pytest.raises(MemoryLimit) as caught:
        with line_budget("flash_attention", 8, "numpy", here):
            big()
    assert sys.gettrace() is previous
    message = caught.value.message.text("en")
    assert "made 64 MB of numpy arrays at once" in message and "test_for_numpy.py" in message, message
