"""The JAX adapter (attnlab/core/frameworks/for_jax.py): conversion and precision, the PRNG key, aliasing,
gradients through jax.vjp, and the forbidden-call guard however a shortcut is reached."""

import os
import subprocess
import sys
import textwrap

import pytest
import torch

from attnlab.core import frameworks, paths
from attnlab.core.forbidden import resolve
from attnlab.core.i18n import t
from attnlab.core.impl import InProcessImpl, Returned, call_checked
from attnlab.core.outcomes import ForbiddenCall, SubmissionError
from attnlab.core.spec_load import load_course

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

ADAPTER = frameworks.adapter("jax")
COURSE = load_course(paths.SPEC_DIR)
SOFTMAX_BANS = COURSE.find("softmax").forbidden
SDPA_BANS = COURSE.find("scaled_dot_product_attention").forbidden
X = torch.randn(2, 5, dtype=torch.float32)


@pytest.mark.slow  # a fresh interpreter importing JAX: 2-5 s
def test_importing_the_adapter_and_checking_a_torch_call_do_not_import_jax():
    """JAX costs a second of import and its memory: a torch process (a student's pytest, the judge) never
    pays for it, not even through jaxtyping, which imports JAX on its first jaxtyped() where installed."""
    code = ("import sys, torch, attnlab.core.frameworks as f; f.adapter('jax')\n"
            "from attnlab.core import paths, typecheck\n"
            "from attnlab.core.scoring import load_reference\n"
            "from attnlab.core.impl import find_function\n"
            "fn = find_function(load_reference(), 'softmax', 'run_softmax')\n"
            "x = torch.randn(2, 3)\n"
            "typecheck.check_call(fn, {'in_features': x, 'dim': -1}, fn(x, -1), name='run_softmax')\n"
            "assert 'jax' not in sys.modules, 'jax was imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=paths.ROOT)


@pytest.mark.parametrize(("dtype", "expected"), [(torch.float32, "float32"), (torch.float64, "float64"),
                                                 (torch.bfloat16, "bfloat16"), (torch.float16, "float16"),
                                                 (torch.bool, "bool")])
def test_arguments_keep_their_dtype_and_values(dtype, expected):
    tensor = torch.randn(3, 4).to(dtype).T  # transposed: JAX arrays have no strides, the values must survive
    converted = ADAPTER.to_framework({"x": tensor})["x"]
    assert isinstance(converted, jax.Array) and str(converted.dtype) == expected
    assert torch.equal(ADAPTER.tensor_of(converted), tensor)


def test_float64_calls_run_with_x64_and_others_keep_jax_defaults():
    def defaults(x, positions):
        return jnp.stack([jnp.ones(2), jnp.zeros(2)]) + 0 * x.sum(), str(positions.dtype)

    seen = {}

    def student(x, positions):
        out, seen["positions"] = defaults(x, positions)
        seen["ones"] = str(jnp.ones(2).dtype)
        return out

    for dtype, ones, positions in ((torch.float32, "float32", "int32"), (torch.float64, "float64", "int64")):
        call_checked(student, exercise="softmax", function="f", forbidden_calls=(), adapter=frameworks.adapter("jax"),
                     kwargs={"x": X.to(dtype), "positions": torch.arange(3)})
        assert seen == {"ones": ones, "positions": positions}
    assert str(jnp.ones(2).dtype) == "float32"  # the x64 scope ended with the call


def test_generator_is_a_typed_key_made_from_the_seed():
    key = ADAPTER.to_framework({"g": torch.Generator().manual_seed(21)})["g"]
    assert jax.dtypes.issubdtype(key.dtype, jax.dtypes.prng_key)
    same = ADAPTER.generator(21)
    assert bool((jax.random.key_data(key) == jax.random.key_data(same)).all())
    assert jax.random.uniform(key, (3,)).tolist() == jax.random.uniform(same, (3,)).tolist()
    assert jax.random.uniform(key, (3,)).tolist() != jax.random.uniform(ADAPTER.generator(22), (3,)).tolist()


def test_returning_the_input_itself_is_an_alias_and_a_copy_is_not():
    kwargs = {"in_features": X, "dim": -1}
    same = call_checked(lambda in_features, dim: in_features, exercise="softmax", function="run_softmax",
                        kwargs=kwargs, forbidden_calls=(), adapter=frameworks.adapter("jax"))
    copy = call_checked(lambda in_features, dim: jnp.array(in_features), exercise="softmax",
                        function="run_softmax", kwargs=kwargs, forbidden_calls=(), adapter=frameworks.adapter("jax"))
    assert same.aliases == ("in_features",) and copy.aliases == () and copy.modified == ()


@pytest.mark.parametrize(("returned", "named"), [
    (lambda x: x.__array__(), "ndarray"), (lambda x: float(x[0, 0]), "float"), (lambda x: None, "NoneType"),
    (lambda x: jax.random.key(0), "PRNGKeyArray")])
def test_returning_something_else_names_jax_array(returned, named):
    with pytest.raises(SubmissionError, match=f"returned {named}.*expected a jax.Array"):
        call_checked(lambda in_features, dim: returned(in_features), exercise="softmax", function="run_softmax",
                     kwargs={"in_features": X, "dim": -1}, forbidden_calls=(), adapter=frameworks.adapter("jax"))


# -- gradients ---------------------------------------------------------------------------------------
def _vjp(fn, x=None):
    x = torch.randn(2, 3, 4, dtype=torch.float64) if x is None else x
    cotangent = torch.randn(2, 3, 4, dtype=torch.float64)
    kwargs = {"in_features": x, "dim": 1}
    return x, cotangent, ADAPTER.vjp(fn, exercise="softmax", function="run_softmax", kwargs=kwargs,
                                     forbidden_calls=SOFTMAX_BANS, wrt=("in_features",), cotangent=cotangent)


def test_gradients_come_from_jax_vjp_in_float64():
    def student(in_features, dim):
        e = jnp.exp(in_features - in_features.max(axis=dim, keepdims=True))
        return e / e.sum(axis=dim, keepdims=True)

    x, cotangent, (output, grads) = _vjp(student)
    leaf = x.clone().requires_grad_(True)
    expected = torch.softmax(leaf, dim=1)
    (expected * cotangent).sum().backward()
    assert output.dtype == torch.float64 and torch.allclose(output, expected.detach(), atol=1e-12)
    assert grads["in_features"].dtype == torch.float64 and torch.allclose(grads["in_features"], leaf.grad, atol=1e-12)


@pytest.mark.parametrize("cut", [lambda x: jax.lax.stop_gradient(x), lambda x: jnp.asarray(x.__array__())])
def test_an_output_cut_from_the_arguments_is_not_differentiable(cut):
    with pytest.raises(SubmissionError, match="not differentiable") as caught:
        _vjp(lambda in_features, dim: jnp.exp(cut(in_features)))
    assert "stop_gradient" in t(caught.value.hint.key, "en")


def test_a_wrong_output_shape_under_the_gradient_law_is_named():
    with pytest.raises(SubmissionError, match=r"returned shape \[\(2, 3\)\], expected \[\(2, 3, 4\)\]"):
        _vjp(lambda in_features, dim: in_features.sum(axis=-1))


# -- forbidden calls -----------------------------------------------------------------------------------
def _call_file(tmp_path, source: str, exercise: str = "softmax", bans=SOFTMAX_BANS, name: str = "submission"):
    """Call a one-module student package, imported as grading imports one (module-level imports included)."""
    spec = COURSE.find(exercise)
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / f"{spec.module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    kwargs = {"in_features": X, "dim": -1} if exercise == "softmax" else {"Q": X, "K": X, "V": X}
    impl = InProcessImpl(package, libraries=COURSE.libraries, adapter=frameworks.adapter("jax"))
    [got] = impl.call_many(exercise=exercise, module=spec.module, function=spec.function, calls=[kwargs],
                           forbidden_calls=bans)
    return got


RETURN = "def run_softmax(in_features, dim):\n    return "
SHORTCUTS = {
    "attribute": "import jax\n" + RETURN + "jax.nn.softmax(in_features, axis=dim)\n",
    "from-import": "from jax.nn import softmax\n" + RETURN + "softmax(in_features, dim)\n",
    "module alias": "import jax.nn as N\n" + RETURN + "N.softmax(in_features, axis=dim)\n",
    "built name": "import jax\n" + RETURN + "getattr(jax.nn, 'soft' + 'max')(in_features, axis=dim)\n",
    "jit": "import jax\n" + RETURN + "jax.jit(jax.nn.softmax, static_argnames='axis')(in_features, axis=dim)\n",
    "scipy": "from jax.scipy.special import softmax\n" + RETURN + "softmax(in_features, axis=dim)\n",
    "log_softmax": "import jax, jax.numpy as jnp\n" + RETURN + "jnp.exp(jax.nn.log_softmax(in_features, axis=dim))\n",
    "caught": "import jax, jax.numpy as jnp\ndef run_softmax(in_features, dim):\n    try:\n"
              "        return jax.nn.softmax(in_features, axis=dim)\n    except Exception:\n"
              "        e = jnp.exp(in_features - in_features.max(axis=dim, keepdims=True))\n"
              "        return e / e.sum(axis=dim, keepdims=True)\n",
}


@pytest.mark.parametrize("route", sorted(SHORTCUTS))
def test_a_forbidden_softmax_is_caught_however_it_is_reached(tmp_path, route):
    got = _call_file(tmp_path, SHORTCUTS[route])
    assert isinstance(got, ForbiddenCall), got
    assert "jax." in str(got)


def test_logsumexp_is_a_legitimate_softmax(tmp_path):
    got = _call_file(tmp_path, "import jax.numpy as jnp\nfrom jax.scipy.special import logsumexp\n"
                               "def run_softmax(in_features, dim):\n"
                               "    return jnp.exp(in_features - logsumexp(in_features, axis=dim, keepdims=True))\n")
    assert isinstance(got, Returned) and torch.allclose(got.output, torch.softmax(X, -1), atol=1e-6)


def test_fused_attention_is_forbidden_where_softmax_is_not(tmp_path):
    fused = "import jax\ndef run_scaled_dot_product_attention(Q, K, V, mask=None):\n" \
            "    return jax.nn.dot_product_attention(Q[None, :, None], K[None, :, None], V[None, :, None])[0, :, 0]\n"
    assert isinstance(_call_file(tmp_path, fused, "scaled_dot_product_attention", SDPA_BANS), ForbiddenCall)
    own = "import math, jax\ndef run_scaled_dot_product_attention(Q, K, V, mask=None):\n" \
          "    return jax.nn.softmax(Q @ K.T / math.sqrt(Q.shape[-1]), axis=-1) @ V\n"
    assert isinstance(_call_file(tmp_path, own, "scaled_dot_product_attention", SDPA_BANS, "own"), Returned)


def test_every_jax_name_in_the_specs_resolves():
    names = {n for e in COURSE.all_coded for n in e.forbidden if ADAPTER.owns(n)}
    assert {"jax.nn.softmax", "jax.nn.dot_product_attention"} <= names
    for name in names:
        assert callable(resolve(name)), name


@pytest.mark.slow  # a fresh interpreter importing JAX: 2-5 s
def test_lowerings_share_one_mlir_context_and_lower_the_same_module():
    """jax_lowering.share_ir_context (applied by the adapter's prepare): two different operations lower into
    the same MLIR context, and a module lowers to the same text as in a context of its own."""
    code = textwrap.dedent("""
        import jax, jax.numpy as jnp
        from jax._src.interpreters import mlir
        fresh = jax.jit(lambda x: jnp.tanh(x) * 2).lower(jnp.ones((3, 4))).as_text()
        from attnlab.core import frameworks
        frameworks.adapter("jax").prepare()
        first = jax.jit(lambda x: jnp.exp(x)).lower(jnp.ones((2,))).compiler_ir().context
        second = jax.jit(lambda x: x @ x.T).lower(jnp.ones((2, 3))).compiler_ir().context
        assert first is second and mlir.make_ir_context() is first, (first, second)
        shared = jax.jit(lambda x: jnp.tanh(x) * 2).lower(jnp.ones((3, 4))).as_text()
        assert shared == fresh, (shared, fresh)
        print("shared")
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=paths.ROOT,
                          env={**os.environ, "ATTNLAB_JAX_GRADING_CACHE": ""})
    assert proc.returncode == 0 and "shared" in proc.stdout, proc.stderr[-3000:]


@pytest.mark.slow  # a fresh interpreter importing JAX: 2-5 s
def test_xla_compiles_quickly_unless_the_user_set_the_same_flag():
    """The quick-compile flags are added to XLA_FLAGS before JAX first computes, in a fresh process as in a
    runner; a flag the user set keeps the user's value, and any other flag of theirs stays."""
    from attnlab.core.frameworks.for_jax import CLASSIC_EMITTERS, QUICK_COMPILE_FLAGS, quick_compile_flags

    code = ("import os\nfrom attnlab.core import frameworks\nframeworks.adapter('jax').prepare()\n"
            "import jax.numpy as jnp\nassert float(jnp.ones(3).sum()) == 3.0\nprint(os.environ['XLA_FLAGS'])")
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    plain = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=paths.ROOT)
    assert plain.returncode == 0, plain.stderr[-2000:]
    assert plain.stdout.split() == list(quick_compile_flags())
    assert quick_compile_flags() == (*QUICK_COMPILE_FLAGS, CLASSIC_EMITTERS)  # jax 0.10 here: the flag exists
    mine = "--xla_backend_optimization_level=2 --xla_cpu_enable_fast_math=false"
    chosen = subprocess.run([sys.executable, "-c", code], env={**env, "XLA_FLAGS": mine}, capture_output=True,
                            text=True, cwd=paths.ROOT)
    assert chosen.returncode == 0, chosen.stderr[-2000:]
    assert chosen.stdout.split() == [*mine.split(), "--xla_llvm_disable_expensive_passes=true", CLASSIC_EMITTERS]
