"""The pytest plugin as students and CI use it: pytest in a subprocess (pytester), checks collected from
spec/<id>.yaml, `--impl` as a relative or absolute path, a points table."""

import re
import shutil

import pytest
from reference_copies import softmax_without_return

from attnlab.core import paths
from attnlab.core.spec_load import load_course

pytestmark = pytest.mark.slow  # each starts pytest in a subprocess, on one core: beside the in-process tests

SPEC = str(paths.SPEC_DIR)


@pytest.fixture
def run(pytester):
    def run(*args: str):
        return pytester.runpytest_subprocess(SPEC, "-q", "-p", "no:cacheprovider", *args)
    return run


def test_checks_are_collected_from_the_specs_with_exercise_markers(pytester):
    result = pytester.runpytest_subprocess(SPEC, "--collect-only", "-q", "-m", "causal_mask")
    lines = [line for line in result.outlines if "::" in line]
    assert lines and all(line.split("::")[0].endswith("spec/causal_mask.yaml") for line in lines)
    assert {line.split("::")[1] for line in lines} >= {"short", "explicit_device"}


def test_template_fails_every_exercise_as_not_implemented_without_crashing(run):
    result = run("--impl", "student_template", "-m", "softmax or rope or quiz")
    assert result.ret == 1
    out = result.stdout.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out
    assert "softmax: not implemented yet (run_softmax in softmax.py)" in out
    table = out.split("points by exercise", 1)[1].splitlines()
    for row in ("softmax ", "rope ", "quiz "):
        line = next(li for li in table if li.startswith(row))
        assert "not implemented" in line and "0.00 /" in line


@pytest.mark.parametrize("assignment", [None, "attention", "modern"])
def test_an_untouched_package_reports_one_line_per_exercise_then_the_table(run, assignment):
    """Without --assignment the repository's suite runs every assignment's exercises, and says so just as briefly."""
    course = load_course(paths.SPEC_DIR, assignment)
    exercises = course.everything if assignment is None else course.exercises
    coded = [e for e in exercises if e in course.all_coded]
    questions = sum(len(e.questions) for e in exercises if e not in coded)
    result = run("--impl", "student_template", *(["--assignment", assignment] if assignment else []))
    out = result.stdout.str()
    # the progress lines, a banner, one line per stub, the table's header, rows and total, the summary
    assert result.ret == 1 and len(out.splitlines()) <= 2 * len(exercises) + 10, out
    assert "FAILURES" not in out and "short test summary" not in out
    for exercise in coded:
        assert len(re.findall(rf"^{exercise.id}: not implemented yet", out, re.MULTILINE)) == 1, exercise.id
    assert re.search(rf"\d+ skipped, {len(coded) + questions} not implemented in", result.outlines[-1])


def test_the_table_speaks_the_chosen_language(run):
    out = run("--impl", "student_template", "-m", "softmax or causal_mask", "--lang", "zh").stdout.str()
    assert re.search(r"练习\s+状态\s+检查\s+得分\n", out) and "exercise" not in out
    assert re.search(r"softmax\s+未实现\s+0/\d+\s+0\.00 / 8\n", out)
    assert "softmax：尚未实现（softmax.py 中的 run_softmax）" in out


def test_code_that_does_not_import_is_reported_once_at_its_file_and_line(run):
    result = run("--impl", "tests/adversarial/syntax_error", "-m", "not quiz")
    out = result.stdout.str()
    # once in the report; pytest's own short summary may repeat the first line, cut to the terminal's width
    report = out.split("short test summary info")[0]
    assert result.ret == 1 and report.count("SyntaxError") == 1, out
    assert "your package does not import: SyntaxError: expected ':' (at __init__.py:2)" in out
    assert "tests/adversarial" not in out and re.search(r"1 failed, \d+ skipped", result.outlines[-1])


def test_reference_passes_and_table_totals_its_points(run):
    # named with --impl: the repository's own default run prints no students' table (test_first_hour)
    result = run("--impl", "reference", "-m", "causal_mask or dropout")
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert "10.00 / 10" in result.stdout.str()  # causal_mask 4 + dropout 6


@pytest.mark.parametrize("form", ["relative", "absolute", "equals"])
def test_impl_is_known_however_the_path_is_given(pytester, form):
    """The plugin is an entry point: pytest knows --impl even when the path given after it (an absolute
    one, outside the project) would make pytest look for conftest files elsewhere."""
    package = paths.EXAMPLES_DIR / "alice_partial"
    args = {"relative": ["--impl", "examples/submissions/alice_partial"], "absolute": ["--impl", str(package)],
            "equals": [f"--impl={package}"]}[form]
    result = pytester.runpytest_subprocess(SPEC, "-q", *args, "-m", "softmax")
    assert result.ret == 0, result.stdout.str()[-2000:]
    assert "(alice_partial)" in result.stdout.str()


def test_chinese_feedback_from_lang_option(run):
    result = run("--impl", "examples/submissions/bob_buggy", "-m", "softmax", "--lang", "zh")
    assert result.ret == 1
    out = result.stdout.str()
    assert "用例" in out and "提示" in out and "总计" in out
    # four checks fail; the hint (and each likely cause) is said under the first failure only. pytest's
    # own short summary repeats each message in full where it sees a CI variable, so count above it.
    failures = out.split("short test summary info")[0]
    assert failures.count("提示：") == 1 and failures.count("可能的原因：") == 1, out
    assert len(re.findall(r"^softmax · ", failures, re.MULTILINE)) == 4, out


def test_missing_package_is_a_clear_error_per_test(run):
    result = run("--impl", "no/such/dir", "-m", "softmax")
    assert result.ret == 1
    assert "is not a package: it has neither __init__.py nor any .py file" in result.stdout.str()


def test_attack_data_is_never_collected(pytester):
    """tests/adversarial/conftest_hooks/conftest.py forces exit status 0: collecting the whole tests/ tree
    (as `pytest` does) must not load it, so failing checks still fail the run."""
    result = pytester.runpytest_subprocess(str(paths.ROOT / "tests"), SPEC, "-q", "--impl", "student_template",
                                           "-m", "causal_mask")
    assert result.ret == 1, result.stdout.str()[-1500:]
    assert "not implemented" in result.outlines[-1]


def test_a_broken_spec_is_one_collection_error_naming_its_file_and_key(pytester, monkeypatch):
    """An instructor's slip in a spec reaches `pytest spec/` as the loader's sentence (file, key, what was
    expected), not as pytest's and pluggy's frames around it. A copy of the harness with one broken spec,
    imported ahead of the installed one."""
    root = pytester.path / "course"
    for folder in ("attnlab", "spec"):
        shutil.copytree(paths.ROOT / folder, root / folder, ignore=shutil.ignore_patterns("__pycache__"))
    spec = root / "spec" / "scaled_dot_product_attention.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("    output_dim: -2\n", "", 1), encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(root))
    result = pytester.runpytest_subprocess(str(root / "spec"), "-q", "-p", "no:cacheprovider", "--impl",
                                           str(paths.TEMPLATE_DIR))
    out = result.stdout.str()
    assert result.ret == 2 and "ERROR collecting" in out, out
    assert (f"{spec}: properties[0].output_dim: expected a value: law 'permutation_equivariance' requires "
            "'output_dim'") in out
    assert "pluggy" not in out and "pytest_plugin.py" not in out, out


def test_the_table_is_followed_by_which_broken_function_to_mend_first(run, pytester):
    """run_softmax without `return`: the run_scaled_dot_product_attention built on it fails too, and after the
    table the student reads to fix softmax first (attnlab.core.callees)."""
    package = softmax_without_return(pytester.path / "mine")
    result = run("--impl", str(package), "-m", "softmax or scaled_dot_product_attention or causal_mask")
    after_table = result.stdout.str().split("points by exercise", 1)[1]
    assert result.ret == 1
    assert after_table.count("Fix softmax first:") == 1  # sdpa's; softmax's own and the mask's say nothing
    assert ("Fix softmax first: run_scaled_dot_product_attention calls your run_softmax (softmax), which fails its "
            "own checks") in after_table
