"""MindSpore's forbidden shortcuts (the specs' mindspore.* names) get the same "forbidden" verdict as torch's,
however the student reaches them, and a student who catches the guard's exception is still reported.
Runs where MindSpore is installed (.venv-mindspore: tests/test_mindspore_venv.py runs it there)."""

import textwrap

import pytest

from attnlab.core import frameworks, paths
from attnlab.core.forbidden import resolve
from attnlab.core.impl import FileImpl
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

pytestmark = pytest.mark.skipif(not frameworks.adapter("mindspore").available(),
                                reason="mindspore is not installed here (scripts/venv-mindspore makes .venv-mindspore)")

OWN_SOFTMAX = """
def own(x, dim):
    e = ops.exp(x - x.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)
"""
SOFTMAX = "def run_softmax(in_features, dim):\n    "
SOFTMAX_ROUTES = {  # (module-level lines, body of run_softmax)
    "ops.softmax": ("from mindspore import ops", "return ops.softmax(in_features, dim)"),
    "from_import_alias": ("from mindspore.ops import softmax as normalise", "return normalise(in_features, dim)"),
    "module_alias": ("import mindspore.ops as O", "return O.softmax(in_features, dim)"),
    "getattr_built_name": ("import mindspore", "return getattr(mindspore.ops, 'soft' + 'max')(in_features, axis=dim)"),
    "nn_Softmax_cell": ("from mindspore import nn", "return nn.Softmax(axis=dim)(in_features)"),
    "cell_built_at_import": ("from mindspore import nn\nLAST = nn.Softmax(axis=-1)",
                             "return LAST(in_features.swapaxes(dim, -1)).swapaxes(dim, -1)"),
    "primitive_built_at_import": ("from mindspore import ops\nPRIM = ops.Softmax(-1)",
                                  "return PRIM(in_features.swapaxes(dim, -1)).swapaxes(dim, -1)"),
    "tensor_method": ("", "return in_features.softmax(dim)"),
    "mint": ("from mindspore import mint", "return mint.softmax(in_features, dim)"),
    "exp_of_log_softmax": ("from mindspore import ops", "return ops.exp(ops.log_softmax(in_features, dim))"),
    "caught_and_hidden": ("from mindspore import ops\n" + OWN_SOFTMAX,
                          "try:\n        return ops.softmax(in_features, dim)\n"
                          "    except Exception:\n        return own(in_features, dim)"),
}
DROPOUT = "def run_dropout(in_features, p, training=True, generator=None):\n    "
OTHER_ROUTES = {
    ("dropout", "nn_Dropout"): "from mindspore import nn\n" + DROPOUT + "cell = nn.Dropout(p=p)\n    "
                               "cell.set_train(training)\n    return cell(in_features)",
    ("dropout", "ops_dropout"): "from mindspore import ops\n" + DROPOUT + "return ops.dropout(in_features, p=p)",
    ("scaled_dot_product_attention", "flash_attention_score"):
        "from mindspore import ops\ndef run_scaled_dot_product_attention(Q, K, V, mask=None):\n"
        "    return ops.flash_attention_score(Q, K, V, 1, input_layout='BSH')",
    ("multihead_self_attention", "nn_MultiheadAttention"):
        "from mindspore import nn\ndef run_multihead_self_attention(d_model, num_heads, q_proj_weight, k_proj_weight,\n"
        "        v_proj_weight, o_proj_weight, in_features, o_proj_bias=None):\n"
        "    return nn.MultiheadAttention(d_model, num_heads)(in_features, in_features, in_features)[0]",
}


def graded(tmp_path, exercise_id: str, source: str):
    path = tmp_path / f"{exercise_id}_route.py"
    path.write_text(textwrap.dedent(source) + "\n", encoding="utf-8")
    exercise = load_course(paths.SPEC_DIR, framework="mindspore").find(exercise_id).in_framework("mindspore")
    return grade_exercise(make_context(exercise, FileImpl(path, adapter=frameworks.adapter("mindspore"))))


def test_every_mindspore_name_in_the_specs_resolves():
    """A misspelt name would be skipped by the guard (a name the installed version lacks is not enforced)."""
    names = {n for e in load_course(paths.SPEC_DIR).all_coded for n in e.forbidden if n.startswith("mindspore.")}
    assert len(names) > 20
    for name in sorted(names):
        resolve(name)


@pytest.mark.parametrize("route", sorted(SOFTMAX_ROUTES))
def test_softmax_shortcuts_are_forbidden_however_reached(tmp_path, route):
    module_lines, body = SOFTMAX_ROUTES[route]
    result = graded(tmp_path, "softmax", module_lines + "\n" + SOFTMAX + body)
    assert result.status == Status.FORBIDDEN and result.score == 0, result.feedback
    assert "mindspore." in result.feedback


@pytest.mark.parametrize(("exercise", "route"), sorted(OTHER_ROUTES))
def test_dropout_and_fused_attention_shortcuts_are_forbidden(tmp_path, exercise, route):
    result = graded(tmp_path, exercise, OTHER_ROUTES[exercise, route])
    assert result.status == Status.FORBIDDEN and result.score == 0, result.feedback


def test_an_own_softmax_passes(tmp_path):
    source = "from mindspore import ops\n" + OWN_SOFTMAX + SOFTMAX + "return own(in_features, dim)"
    result = graded(tmp_path, "softmax", source)
    assert result.score == result.max_score, result.feedback
