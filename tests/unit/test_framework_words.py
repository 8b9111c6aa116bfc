"""A framework's own words (attnlab.core.spec_words): what NumPy, JAX and MindSpore students read names
none of torch's API, every call it names exists in their framework, and a spec that gets the overrides wrong
fails with its file and key. The MindSpore check of the names runs in MindSpore's venv (`-k mindspore`)."""

import copy
import importlib
import json
import re

import jsonschema
import pytest
import yaml
from spec_copies import edit

from attnlab.core import paths
from attnlab.core.spec import SpecError
from attnlab.core.spec_load import load_course
from attnlab.instructor.schema import SCHEMA_DIR

COURSE = load_course(paths.SPEC_DIR)  # every exercise in its general words (the course is torch's)
OTHERS = ("numpy", "jax", "mindspore")

# torch API the general texts name (test_every_pattern_is_one_the_general_texts_use), which no other
# framework has under that name: a torch-only module or class, or a torch method or keyword whose name
# means something else there (NumPy's .transpose and .flatten take axes or an order, .size is a number)
TORCH_API = {
    "torch": r"\btorch\b|\bPyTorch\b",
    "Tensor.": r"(?<![\w.])Tensor\.",
    "F.": r"(?<![\w.])F\.\w",
    ".view(": r"\.view\(",
    ".contiguous(": r"\.contiguous\(",
    ".transpose(dim0, dim1)": r"\.transpose\(-?\d+, *-?\d+\)",
    ".size(": r"\.size\(",
    ".flatten(dim)": r"\.flatten\(-?\d",
    "keepdim=": r"\bkeepdim=",
    "generator=": r"\bgenerator=",
    ".split(size, dim=)": r"\.split\([^)]*\bdim=",
}
NOT_THERE = {  # torch's names a framework lacks (MindSpore has masked_fill, repeat_interleave, unsqueeze, .bool())
    "numpy": {"masked_fill": r"masked_fill", "repeat_interleave": r"repeat_interleave", ".unsqueeze(": r"\.unsqueeze\(",
              ".bool(": r"\.bool\(\)", ".expand(": r"\.expand\("},
    "mindspore": {"nn.Linear": r"\bnn\.Linear\b"},  # its layer is nn.Dense
}
NOT_THERE["jax"] = NOT_THERE["numpy"]

# the module each framework's texts name by its short name; nn.Linear may stay in NumPy and JAX texts as the
# name of the (out, in) weight layout
MODULES = {"numpy": {"np": "numpy", "numpy": "numpy"},
           "jax": {"jnp": "jax.numpy", "jax": "jax"},
           "mindspore": {"ops": "mindspore.ops", "nn": "mindspore.nn", "mindspore": "mindspore"},
           "torch": {"torch": "torch", "F": "torch.nn.functional", "nn": "torch.nn"}}
LAYOUT_NAME = {"numpy": {"nn.Linear"}, "jax": {"nn.Linear"}, "mindspore": set(), "torch": set()}
METHODS_OF = {"numpy": ("numpy:ndarray", "numpy.random:Generator"), "jax": ("jax:Array",),
              "mindspore": ("mindspore:Tensor",), "torch": ("torch:Tensor",)}
QUALIFIED = re.compile(r"(?<![\w.])(np|numpy|jnp|jax|ops|nn|mindspore|torch|F)((?:\.[A-Za-z_]\w*)+)")
METHOD = re.compile(r"\.([A-Za-z_]\w*)\(")
CJK = re.compile(r"[\u4e00-\u9fff]")


def read_texts(exercise) -> list[tuple[str, str]]:
    """(where, text) of everything a student reads from the spec, in both languages."""
    found = []
    for lang in ("en", "zh"):
        found += [(f"title.{lang}", exercise.title.get(lang)), (f"description.{lang}", exercise.description.get(lang))]
        found += [(f"hints.{lang}[{i}]", hint) for i, hint in enumerate(exercise.hints[lang])]
        found += [(f"{m.id}.{lang}", m.message.get(lang)) for m in exercise.misconceptions]
    return found


def texts_in(framework: str) -> list[tuple[str, str]]:
    """What the framework's students read: the exercises offered in it (a Triton exercise is torch's alone)."""
    return [(f"{e.id}: {where}", text) for e in COURSE.all_coded if framework in e.frameworks
            for where, text in read_texts(e.in_framework(framework))]


@pytest.mark.parametrize("framework", OTHERS)
def test_what_a_framework_reads_names_no_torch_api(framework):
    patterns = {**TORCH_API, **NOT_THERE.get(framework, {})}
    found = [f"{where}: {name!r} in {text!r}" for where, text in texts_in(framework)
             for name, pattern in patterns.items() if re.search(pattern, text, re.ASCII)]
    assert found == [], "\n".join(found)


def test_every_pattern_is_one_the_general_texts_use():
    """The list above is what torch's words actually contain, so the test above can fail."""
    general = [text for _, text in texts_in("torch")]
    for name, pattern in {**TORCH_API, **NOT_THERE["numpy"], **NOT_THERE["mindspore"]}.items():
        assert any(re.search(pattern, text, re.ASCII) for text in general), f"no general text names {name}"


def named_calls(framework: str, text: str) -> tuple[list[str], list[str], list[str]]:
    """(qualified names like np.tril, another framework's qualified names, method names like swapaxes)."""
    own, foreign = [], []
    for root, rest in QUALIFIED.findall(text):
        name = root + rest
        if root in MODULES[framework]:
            own.append(name)
        elif not any(name.startswith(layout) for layout in LAYOUT_NAME[framework]):
            foreign.append(name)
    return own, foreign, METHOD.findall(QUALIFIED.sub("", text))


def resolves(framework: str, qualified: str) -> bool:
    root, *attributes = qualified.split(".")
    value = importlib.import_module(MODULES[framework][root])
    for attribute in attributes:
        if not hasattr(value, attribute):
            return False
        value = getattr(value, attribute)
    return True


def method_owners(framework: str) -> list[type]:
    return [getattr(importlib.import_module(module), name)
            for module, name in (spec.split(":") for spec in METHODS_OF[framework])]


@pytest.mark.parametrize("framework", ["torch", "numpy", "jax", "mindspore"])
def test_every_call_a_framework_reads_exists_there(framework):
    """np.tril, ops.masked_fill, jax.random.bernoulli... exist in the installed version, and so do the methods
    named (x.swapaxes, generator.random). MindSpore's run in its own venv."""
    pytest.importorskip({"numpy": "numpy", "jax": "jax", "mindspore": "mindspore", "torch": "torch"}[framework])
    owners = method_owners(framework)
    missing = []
    for where, text in texts_in(framework):
        own, _, methods = named_calls(framework, text)
        missing += [f"{where}: {name}" for name in own if not resolves(framework, name)]
        missing += [f"{where}: .{m}(" for m in methods if not any(hasattr(owner, m) for owner in owners)]
    assert missing == [], "\n".join(missing)


@pytest.mark.parametrize("framework", OTHERS)
def test_what_a_framework_reads_names_no_other_frameworks_module(framework):
    found = [f"{where}: {foreign}" for where, text in texts_in(framework)
             for foreign in named_calls(framework, text)[1]]
    assert found == [], "\n".join(found)


def test_the_own_words_are_in_their_language():
    """zh is real Chinese, en has none; both languages are given wherever a framework has its own text."""
    for exercise in COURSE.all_coded:
        for framework, words in exercise.framework_words.items():
            texts = [*((lang, getattr(words.description, lang)) for lang in ("en", "zh") if words.description),
                     *((lang, hint) for lang, hints in (words.hints or {}).items() for hint in hints),
                     *((lang, m.get(lang)) for m in words.messages.values() for lang in ("en", "zh"))]
            for lang, text in texts:
                assert bool(CJK.search(text)) == (lang == "zh"), f"{exercise.id} {framework} {lang}: {text}"


def test_every_exercise_that_names_torch_api_has_the_other_frameworks_words():
    named = {e.id for e in COURSE.all_coded if any(re.search(p, text, re.ASCII) for _, text in read_texts(e)
                                                   for p in TORCH_API.values())}
    offered = {i: set(OTHERS) & set(COURSE.find(i).frameworks) for i in named}  # its own words where it is offered
    assert named and all(set(COURSE.find(i).framework_words) == offered[i] for i in named), named


def test_in_framework_always_starts_from_the_general_spec():
    general = COURSE.find("causal_mask")
    in_numpy = general.in_framework("numpy")
    assert "np.tril" in in_numpy.hint("en") and "torch" not in in_numpy.hint("en")
    assert in_numpy.in_framework("mindspore") == general.in_framework("mindspore")
    assert in_numpy.in_framework("numpy") == in_numpy and in_numpy.in_framework("torch") == general
    assert "ops.tril" in in_numpy.in_framework("mindspore").misconceptions[0].message.zh
    # a framework's tolerance and words come together
    attention = COURSE.find("self_attention")
    in_mindspore = attention.in_framework("numpy").in_framework("mindspore")
    assert in_mindspore.tolerance["float64"] != attention.tolerance["float64"]
    assert "nn.Dense" in in_mindspore.description.en
    assert load_course(paths.SPEC_DIR, framework="mindspore").find("self_attention") == in_mindspore


# -- a spec that gets them wrong --------------------------------------------------------------------------------



BOTH = {"en": ["x"], "zh": ["x"]}
MISTAKES = [  # (change to spec/softmax.yaml, fragments of the error)
    (lambda d: d["hints"].update(pytorch=BOTH), ["softmax.yaml: hints: expected only keys", "'pytorch'"]),
    (lambda d: d["hints"].update(torch=BOTH), ["softmax.yaml: hints.torch:", "no torch key"]),
    (lambda d: d["hints"]["numpy"].pop("zh"), ["softmax.yaml: hints.numpy.zh:", "both languages"]),
    (lambda d: d["hints"]["numpy"].update(en=[]), ["hints.numpy.en:", "at least one hint"]),
    (lambda d: d["hints"]["numpy"].update(en=[3]), ["hints.numpy.en[0]: expected a string, got 3"]),
    (lambda d: d["hints"].update(numpy=["np.max"]), ["hints.numpy: expected a mapping"]),
    (lambda d: d["description"].update(nmupy={"en": "x", "zh": "x"}), ["description: expected only keys", "'nmupy'"]),
    (lambda d: d["misconceptions"][3]["message"]["numpy"].pop("en"),
     ["softmax.yaml: misconceptions[3].message.numpy.en: expected a string (this key is required)"]),
    (lambda d: d["misconceptions"][3]["message"]["jax"].update(fr="x"), ["misconceptions[3].message.jax:", "'fr'"]),
    (lambda d: d.update(frameworks=["torch", "numpy"]), ["softmax.yaml: hints.jax:", "frameworks: ['torch', 'numpy']"]),
]


@pytest.mark.parametrize(("change", "fragments"), MISTAKES)
def test_a_wrong_override_names_file_and_key(spec_dir, change, fragments):
    assert "numpy" in yaml.safe_load((spec_dir / "softmax.yaml").read_text(encoding="utf-8"))["hints"]
    edit(spec_dir / "softmax.yaml", change)
    with pytest.raises(SpecError) as info:
        load_course(spec_dir)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


@pytest.mark.parametrize(("change", "fragments"), MISTAKES[:-1])  # the last needs the loader
def test_the_schema_underlines_the_same_mistakes(change, fragments):
    data = yaml.safe_load((paths.SPEC_DIR / "softmax.yaml").read_text(encoding="utf-8"))
    schema = json.loads((SCHEMA_DIR / "exercise.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    assert list(validator.iter_errors(data)) == []
    broken = copy.deepcopy(data)
    change(broken)
    assert list(validator.iter_errors(broken)), fragments
