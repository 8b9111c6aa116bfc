"""Generated files are current (drift checks) and the stubs keep the reference's exact API."""

import inspect
import shutil

import pytest

from attnlab.core import paths
from attnlab.core.impl import find_function, load_package
from attnlab.core.spec_load import load_course
from attnlab.instructor import generate

COURSE = load_course(paths.SPEC_DIR)


def test_student_template_is_up_to_date():
    drift = generate.sync_template(COURSE, check=True)
    assert not drift, f"run `python -m attnlab.instructor.generate template`: {drift}"


@pytest.mark.slow  # regenerates every fixture in memory
def test_fixtures_are_up_to_date():
    import reference

    drift = generate.sync_fixtures(COURSE, reference, check=True)
    assert not drift, f"run `python -m attnlab.instructor.generate fixtures`: {drift}"


@pytest.mark.slow  # draws every law's examples with hypothesis
def test_law_draws_are_up_to_date():
    drift = generate.sync_laws(COURSE, check=True)
    assert not drift, f"run `python -m attnlab.instructor.generate laws`: {drift}"


@pytest.mark.slow  # hypothesis draws the law's examples twice: over a second
def test_law_draws_are_replayed_and_stale_ones_are_not(monkeypatch):
    from attnlab.core import laws

    stored = laws._stored_draws()["softmax_normalised"]
    monkeypatch.setattr(laws, "_DRAWN", {})
    assert laws.drawn("softmax_normalised", stored["examples"]) is stored["draws"]
    # other strategies than those the file was drawn from: the file is ignored and hypothesis draws anew
    monkeypatch.setattr(laws, "_DRAWN", {})
    monkeypatch.setattr(laws, "strategies_digest", lambda law: "changed")
    fresh = laws.drawn("softmax_normalised", stored["examples"])
    assert fresh is not stored["draws"] and fresh == laws.draw_examples("softmax_normalised", stored["examples"])
    assert len(fresh) == stored["examples"]


@pytest.mark.parametrize("exercise", COURSE.all_coded, ids=lambda e: e.id)
def test_stub_keeps_signature_and_names_its_exercise(exercise):
    import reference

    stub = find_function(load_package(paths.TEMPLATE_DIR), exercise.module, exercise.function)
    ref = find_function(reference, exercise.module, exercise.function)
    assert str(inspect.signature(stub)) == str(inspect.signature(ref))
    assert inspect.getdoc(stub) == inspect.getdoc(ref)
    source = inspect.getsource(stub)
    assert f'NotImplementedError("exercise {exercise.id}: implement {exercise.function}")' in source


def test_template_has_no_solution_and_no_misconceptions():
    for path in paths.TEMPLATE_DIR.rglob("*"):
        text = path.read_text(encoding="utf-8") if path.is_file() and "__pycache__" not in path.parts else ""
        assert generate.BEGIN not in text and generate.END not in text
    assert not (paths.TEMPLATE_DIR / "misconceptions").exists()


def test_strip_replaces_blocks_and_drops_module_level_helpers():
    source = (
        "import torch\n\n"
        "# BEGIN SOLUTION\ndef _helper():\n    return 1\n# END SOLUTION\n\n\n"
        "def run_thing(x):\n    \"\"\"Doc.\"\"\"\n    # BEGIN SOLUTION\n    return _helper()\n    # END SOLUTION\n")
    out = generate.strip_solutions(source, "t.py")
    assert "_helper" not in out and "return" not in out
    assert '    raise NotImplementedError("exercise thing: implement run_thing")\n' in out
    compile(out, "t.py", "exec")


@pytest.mark.parametrize("bad, message", [
    ("def run_a():\n    # BEGIN SOLUTION\n    pass\n", "unterminated"),
    ("def run_a():\n    # END SOLUTION\n", "without"),
    ("def run_a():\n    # BEGIN SOLUTION\n    # BEGIN SOLUTION\n", "nested"),
])
def test_strip_rejects_broken_markers(bad, message):
    with pytest.raises(ValueError, match=message):
        generate.strip_solutions(bad, "t.py")


def test_fixtures_load_without_pickle():
    from attnlab.core.fixtures import read

    for path in paths.FIXTURES_DIR.rglob("*.npz"):
        arrays = read(path)  # allow_pickle=False inside
        assert all(a.dtype != object for a in arrays.values()), path


@pytest.mark.slow  # 16 notebooks made and validated in memory (~1 s)
def test_handout_notebooks_are_up_to_date():
    from attnlab.instructor.notebooks import sync_notebooks

    drift = sync_notebooks(check=True)
    assert not drift, f"run `python -m attnlab.instructor.generate notebooks`: {drift}"


def test_an_exercise_without_its_reference_in_a_framework_is_named_before_anything_is_generated(tmp_path,
                                                                                                monkeypatch, capsys):
    """A spec without `frameworks:` is written in every framework; a new exercise with only its torch reference
    stopped `generate all` with a FileNotFoundError from the notebook generator. Now nothing is written and the
    message names the spec, the missing files and both ways out."""
    assert generate.missing_references(load_course(paths.SPEC_DIR)) == []
    reference = tmp_path / "reference"
    shutil.copytree(paths.REFERENCE_DIR, reference, ignore=shutil.ignore_patterns("__pycache__"))
    (reference / "numpy" / "softmax.py").unlink()
    rope = reference / "jax" / "rope.py"
    rope.write_text(rope.read_text(encoding="utf-8").replace("def run_rope(", "def run_rope_mine("), encoding="utf-8")
    monkeypatch.setattr(paths, "REFERENCE_DIR", reference)
    assert generate.main(["all", "--check"]) == 2
    err = capsys.readouterr().err
    assert ("spec/softmax.yaml: softmax is written in torch, numpy, jax, mindspore (every framework, as it lists no "
            "`frameworks:`), but reference/numpy/softmax.py does not exist: write run_softmax there, or list only the "
            "frameworks it has a reference in (`frameworks: [torch, jax, mindspore]`)") in err, err
    assert "reference/jax/rope.py does not define run_rope:" in err


def test_notebooks_taken_away_by_an_exercise_in_fewer_frameworks_say_why(tmp_path, monkeypatch):
    """An exercise written in fewer frameworks than its assignment is offered in (a new one with its torch
    reference alone, say) takes that assignment's notebooks in the others away, as it is refused there: the
    generator says which exercise did it."""
    from attnlab.instructor import notebooks

    spec = tmp_path / "spec"
    shutil.copytree(paths.SPEC_DIR, spec, ignore=shutil.ignore_patterns("__pycache__"))
    cross = spec / "cross_attention.yaml"
    cross.write_text(cross.read_text(encoding="utf-8") + "frameworks: [torch, numpy, mindspore]\n", encoding="utf-8")
    monkeypatch.setattr(paths, "SPEC_DIR", spec)
    drift = notebooks.sync_notebooks(check=True, only=("modern", "jax"))
    assert drift == [], drift  # `only` a refused pair: nothing of it is wanted, nothing present is considered
    drift = notebooks.sync_notebooks(check=True)
    assert ("notebooks/modern-jax.en.ipynb (not generated: remove it; assignment 'modern' is graded in jax, but "
            "exercise 'cross_attention' can only be written in torch, numpy, mindspore (spec/cross_attention.yaml "
            "frameworks:))") in drift
    assert len(drift) == 2 and "notebooks/modern-jax.zh.ipynb" in drift[1], drift


def _spec_copy(tmp_path, monkeypatch, exercise: str, old: str, new: str):
    spec = tmp_path / "spec"
    shutil.copytree(paths.SPEC_DIR, spec, ignore=shutil.ignore_patterns("__pycache__"))
    path = spec / f"{exercise}.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    monkeypatch.setattr(paths, "SPEC_DIR", spec)
    return spec


def test_a_broken_spec_stops_generate_and_mutants_with_its_file_and_key_not_a_traceback(tmp_path, monkeypatch,
                                                                                        capsys):
    from attnlab.instructor import mutants

    spec = _spec_copy(tmp_path, monkeypatch, "scaled_dot_product_attention", "    output_dim: -2\n", "")
    expected = (f"{spec}/scaled_dot_product_attention.yaml: properties[0].output_dim: expected a value: law "
                "'permutation_equivariance' requires 'output_dim'")
    assert generate.main(["all", "--check"]) == 2
    assert capsys.readouterr().err == f"python -m attnlab.instructor.generate: {expected}\n"
    assert mutants.main(["scaled_dot_product_attention"]) == 2
    assert capsys.readouterr().err == f"python -m attnlab.instructor.mutants: {expected}\n"


def test_a_misconception_without_its_function_is_named_before_anything_is_generated(tmp_path, monkeypatch, capsys):
    """The fixtures hold every misconception's output: one listed in the spec and not written stopped the fixture
    generator with a LookupError's traceback, after the template and notebooks were written."""
    _spec_copy(tmp_path, monkeypatch, "softmax", "misconceptions:\n",
               'misconceptions:\n  - id: not_written\n    message: {en: "x", zh: "x"}\n')
    assert generate.main(["all", "--check"]) == 2
    assert capsys.readouterr().err == ("spec/softmax.yaml: misconception 'not_written' has no function in "
                                       "reference/misconceptions/softmax.py\n")
