"""What a newcomer reads in the first hour: how a partial score was reached, each diagnosis and hint once per
exercise (grade.py's feedback, `attnlab check`), the likely cause of a failed gradient law, one number format."""

import csv
import io

import torch

from attnlab.core import frameworks, paths
from attnlab.core.gradient_causes import gradient_cause
from attnlab.core.impl import FileImpl
from attnlab.core.results import CheckResult, ExerciseResult, points_cell, score_text
from attnlab.core.said_once import SaidOnce
from attnlab.core.scoring import grade_exercise, make_context, summarise
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status
from attnlab.grade.batch.outputs import summary_csv
from attnlab.student.text import render_result

COURSE = load_course(paths.SPEC_DIR)
SOFTMAX = COURSE.get("softmax")  # 8 points
CAUSE = "  Likely cause: your output equals exp(x - x.max()) with the maximum of the WHOLE tensor"


def failing_case(name: str, cause: str = CAUSE) -> CheckResult:
    return CheckResult(name, False, Status.FAILED, f"softmax · case {name}\n  max abs error 1 at index (0,)\n{cause}")


def checks(cases_passed: int, cases_failed: int, laws_passed: int, laws_failed: int) -> list[CheckResult]:
    return ([CheckResult(f"ok_{i}", True, Status.PASSED) for i in range(cases_passed)]
            + [failing_case(f"bad_{i}") for i in range(cases_failed)]
            + [CheckResult(f"law_{i}", True, Status.PASSED, kind="property") for i in range(laws_passed)]
            + [CheckResult(f"broken_law_{i}", False, Status.FAILED, f"softmax · property broken_law_{i}\n  no",
                           kind="property") for i in range(laws_failed)])


def test_feedback_says_how_a_partial_score_was_reached():
    result = summarise(SOFTMAX, checks(2, 5, 1, 2), "en")
    assert result.score == round(8 * 2 / 7 * (1 + 1 / 3) / 2, 4)
    assert ("How this scored: 3 of 10 checks passed; 2 of 7 cases earn 8 × 2/7; a failed law scales the case "
            "points by (1 + 1/3) / 2 = 0.67 (1 of 3 laws hold), so 1.52 / 8") in result.feedback


def test_passing_only_laws_scores_nothing_and_says_why():
    result = summarise(SOFTMAX, checks(0, 7, 3, 0), "zh")
    assert result.score == 0 and result.status == Status.FAILED
    assert "得分计算：10 项检查通过 3 项；7 个用例中 0 个计分，得 8 × 0/7；" in result.feedback
    assert "即 0.00 / 8" in result.feedback


def test_trivial_cases_are_explained():
    trivial = [CheckResult("zeros_pass_too", True, Status.PASSED, trivial=True), failing_case("bad")]
    assert "(the 1 passed case(s) that an output of zeros would also pass count only once another case passes)" \
        in summarise(SOFTMAX, trivial, "en").feedback


def test_each_diagnosis_and_hint_once_per_exercise_in_grading_feedback():
    result = summarise(SOFTMAX, checks(0, 3, 0, 0), "en")  # three cases, one mistake
    assert result.feedback.count("Likely cause:") == 1 and result.feedback.count("Hint:") == 1
    assert [line for line in result.feedback.splitlines() if "case bad_" in line] == [
        "softmax · case bad_0", "softmax · case bad_1", "softmax · case bad_2"]  # every case is still named
    other = summarise(SOFTMAX, [failing_case("a"), failing_case("b", "  Likely cause: something else")], "en")
    assert other.feedback.count("Likely cause:") == 2  # different causes are both said


def test_each_diagnosis_once_in_attnlab_check():
    found = checks(1, 4, 0, 1)
    result = ExerciseResult("softmax", "run_softmax", 0.0, 8, Status.FAILED, "", tuple(found))
    text = render_result(SOFTMAX, result, "en")
    assert text.count("Likely cause:") == 1 and text.count("✗ case bad_") == 4
    assert "How this scored: 1 of 6 checks passed; 1 of 5 cases earn 8 × 1/5" in text


def test_said_once_speaks_the_readers_language():
    once = SaidOnce("zh")
    first = once.filter("用例 a\n  可能的原因：整个张量的最大值\n  提示：沿 dim 取最大值")
    assert once.filter("用例 b\n  可能的原因：整个张量的最大值\n  提示：沿 dim 取最大值") == "用例 b"
    assert first.count("\n") == 2


def test_a_failed_gradient_gets_the_cause_its_shape_says():
    expected = torch.linspace(-1, 1, 12, dtype=torch.float64).reshape(3, 4)
    nan = expected.clone()
    nan[0, 0] = float("nan")
    assert "NaN or inf" in gradient_cause(nan, expected, "Q").text("en")
    assert "does not depend on Q" in gradient_cause(torch.zeros_like(expected), expected, "Q").text("en")
    scaled = gradient_cause(expected.float() * 0.125, expected, "K").text("en")
    assert scaled.startswith("Likely cause: the gradient is the reference's times 0.125")
    assert gradient_cause(expected + 0.3, expected, "Q") is None  # no cause fits: none is made up
    assert gradient_cause(expected[:2], expected, "Q") is None  # untrusted: another shape gets none
    assert gradient_cause([1.0], expected, "Q") is None


def test_one_number_format():
    assert score_text(11.6695, 94.0) == "11.67 / 94" and score_text(0, 8) == "0.00 / 8"
    assert points_cell(5.0) == points_cell("5") == "5.00" and points_cell("") == ""
    result = {"submission": "ann", "score": 5.0, "max_score": 100, "exercises": [
        {"id": "softmax", "score": 0}, {"id": "rope", "score": 5.0}]}
    [row] = list(csv.DictReader(io.StringIO(summary_csv([result], ["softmax", "rope", "quiz"]))))
    assert [row[k] for k in ("score", "max_score", "softmax", "rope", "quiz")] == ["5.00", "100.00", "0.00", "5.00", ""]


def test_the_gradient_law_of_a_real_implementation_names_the_cause(tmp_path):
    """Right values, but the gradient flows only through a negated copy: the law fails, and says the
    gradient is the reference's times -1 (grade_exercise in process, the law as grading runs it)."""
    path = tmp_path / "impl.py"
    path.write_text("import torch\n\ndef run_softmax(in_features, dim):\n"
                    "    e = torch.exp(in_features - in_features.amax(dim=dim, keepdim=True))\n"
                    "    s = e / e.sum(dim=dim, keepdim=True)\n"
                    "    return 2 * s.detach() - s  # the value of s, the gradient of -s\n")
    result = grade_exercise(make_context(SOFTMAX, FileImpl(path, adapter=frameworks.default())))
    gradient = next(c for c in result.checks if c.name == "gradient")
    assert not gradient.passed and "Likely cause: the gradient is the reference's times -1:" in gradient.message
    assert all(c.passed for c in result.checks if c.kind == "case")
