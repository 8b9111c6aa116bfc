"""Generated files are current (drift checks) and the stubs keep the reference's exact API."""

import inspect

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
