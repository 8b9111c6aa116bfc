"""A case's misconception outputs are computed once per process and shared by every failing submission
(Context.misconception_output), in grading's fresh-seed mode too, where they are computed from the case's
memoised inputs: a memo computed inside another. That nesting once deadlocked grade.py --seed."""

import threading

import pytest

from attnlab.core import checks, frameworks, paths
from attnlab.core.impl import FileImpl
from attnlab.core.scoring import grade_exercise, make_context
from attnlab.core.spec_load import load_course

COURSE = load_course(paths.SPEC_DIR)
BUG = paths.ROOT / "tests" / "mutations" / "causal_mask" / "bug_diagonal_excluded.py"


def grade_in_thread(ctx, seconds: float = 60):
    """grade_exercise(ctx), failing (not hanging) if it does not finish."""
    done = {}
    worker = threading.Thread(target=lambda: done.setdefault("result", grade_exercise(ctx)), daemon=True)
    worker.start()
    worker.join(seconds)
    assert "result" in done, f"grading did not finish in {seconds} s (a lock taken twice?)"
    return done["result"]


@pytest.mark.parametrize("fresh_seed", [None, 20261123])
def test_misconceptions_run_once_per_case_and_diagnose_every_submission(monkeypatch, fresh_seed):
    calls = []

    def counted(exercise, misconception, args):
        calls.append(misconception.id)
        return real(exercise, misconception, args)

    real = checks.run_misconception
    monkeypatch.setattr(checks, "run_misconception", counted)
    monkeypatch.setattr(checks, "_MEMO", {})
    exercise = COURSE.find("causal_mask")
    first = grade_in_thread(make_context(exercise, FileImpl(BUG, adapter=frameworks.default()), fresh_seed=fresh_seed))
    computed = len(calls)
    second = grade_in_thread(make_context(exercise, FileImpl(BUG, adapter=frameworks.default()), fresh_seed=fresh_seed))

    diagnosed = [c.diagnosis for c in first.checks if not c.passed and c.kind == "case"]
    assert diagnosed and set(diagnosed) == {"diagonal_excluded"}
    assert [c.diagnosis for c in second.checks] == [c.diagnosis for c in first.checks]
    assert computed > 0 and len(calls) == computed, "the second submission recomputed the misconceptions"
