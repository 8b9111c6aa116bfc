"""The pytest plugin as students and CI use it, run in a subprocess like a real invocation."""

import subprocess
import sys

from harness import paths


def run_pytest(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pytest", "tests/test_exercises.py", "-q", *args],
                          cwd=paths.ROOT, capture_output=True, text=True, timeout=600)


def test_template_fails_every_exercise_as_not_implemented_without_crashing():
    proc = run_pytest("--impl", "student_template", "-m", "softmax or rope or quiz")
    assert proc.returncode == 1
    out = proc.stdout
    assert "Traceback" not in out and "INTERNALERROR" not in out
    assert "not implemented yet (exercise softmax: implement run_softmax)" in out
    table = out.split("points by exercise", 1)[1].splitlines()
    for row in ("softmax ", "rope ", "quiz "):
        line = next(li for li in table if li.startswith(row))
        assert "not_implemented" in line and "0.00 /" in line
    assert " passed" not in out.splitlines()[-1]


def test_reference_passes_and_table_totals_its_points():
    proc = run_pytest("-m", "causal_mask or dropout")
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert "10.00 / 10" in proc.stdout  # causal_mask 4 + dropout 6


def test_chinese_feedback_from_lang_option():
    proc = run_pytest("--impl", "examples/submissions/bob_buggy", "-m", "softmax", "--lang", "zh")
    assert proc.returncode == 1
    assert "用例" in proc.stdout and "提示" in proc.stdout and "总计" in proc.stdout


def test_missing_package_is_a_clear_error_per_test():
    proc = run_pytest("--impl", "no/such/dir", "-m", "softmax")
    assert proc.returncode == 1
    assert "is not a package: it has no __init__.py" in proc.stdout


def test_attack_data_is_never_collected():
    """tests/adversarial/conftest_hooks/conftest.py forces exit status 0: collecting the whole tests/ tree
    (as `pytest` does) must not load it, so failing tests still fail the run."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "tests", "-q", "--impl", "student_template",
                           "-m", "causal_mask"], cwd=paths.ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stdout[-1500:]
    assert "failed" in proc.stdout.splitlines()[-1]
