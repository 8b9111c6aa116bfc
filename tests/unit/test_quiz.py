"""The quiz as students answer it: the keys the answers file shows are the keys graded, numbers with
thousands separators count, and a malformed answer is a format problem, never a silent "answered" or a
plain "not right". Answers go through real YAML files, as students write them."""

import re

import pytest

from attnlab.core import paths
from attnlab.core.quiz import answer_key, grade_quiz, parse_number, problem_lines, quiz_state, read_answers
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

QUIZ = load_course(paths.SPEC_DIR).get("quiz")
KEY = answer_key(QUIZ)


def answers_file(tmp_path, body: str):
    package = tmp_path / "pkg"
    package.mkdir(exist_ok=True)
    (package / QUIZ.answers_file).write_text("answers:\n" + body, encoding="utf-8")
    return package


def graded(package) -> dict:
    """Each question's check, graded from the file as the judge grades it."""
    result = grade_quiz(QUIZ, read_answers(package / QUIZ.answers_file), KEY, lang="en")
    return {c.name: c for c in result.checks}


def test_the_template_shows_exactly_the_keys_that_are_graded():
    """Every choice line of student_template/quiz.yaml is `<key>) text`, its keys are the spec's, and
    the key in reference/ answers every question with one of them (or a number)."""
    template = (paths.TEMPLATE_DIR / QUIZ.answers_file).read_text(encoding="utf-8")
    blocks = re.split(r"\n  (\w+): null\n", template)
    shown = {qid: re.findall(r"^  #   (\w+)\) ", block, re.MULTILINE) for block, qid in zip(blocks[0::2], blocks[1::2])}
    for question in QUIZ.questions:
        assert shown[question.id] == list(question.choices), question.id
        if question.kind == "choice":
            assert all(len(key) == 1 for key in question.choices), "the handout says to answer choices by letter"
    state = quiz_state(QUIZ, paths.REFERENCE_DIR)
    assert state.malformed == {} and state.unanswered == [] and state.unknown == ()


@pytest.mark.parametrize("written", ["2360064", "2,360,064", "2 360 064", "2_360_064", "'2,360,064'",
                                     "2360064.0", "+2,360,064", "２３６００６４", "２，３６０，０６４", "2360064．0"])
def test_numbers_with_thousands_separators_are_right(tmp_path, written):
    checks = graded(answers_file(tmp_path, f"  exercise_3_3_parameter_count: {written}\n"))
    assert checks["exercise_3_3_parameter_count"].passed


@pytest.mark.parametrize("written", ["b", "B", "b)", "(b)", "d_out", " D_OUT ",
                                     "ｂ", "b）", "（b）", "（ｂ）"])  # a Chinese input method's full-width forms
def test_a_choice_is_its_key_or_its_text(tmp_path, written):
    checks = graded(answers_file(tmp_path, f"  exercise_3_2_argument: '{written}'\n  query_role: b\n"))
    assert checks["exercise_3_2_argument"].passed and checks["query_role"].passed


def test_a_wrong_answer_is_wrong_and_a_malformed_one_says_what_format_is_expected(tmp_path):
    package = answers_file(tmp_path, "  exercise_3_2_argument: a\n  exercise_3_3_parameter_count: 2,360,063\n"
                                     "  query_role: num_heads\n  dot_product_variance_unscaled: about sixty\n"
                                     "  dot_product_variance_scaled: 2,5\n  exercise_3_2_value: true\n")
    checks = graded(package)
    assert "your answer 'a' is not right" in checks["exercise_3_2_argument"].message
    assert "your answer '2,360,063' is not right" in checks["exercise_3_3_parameter_count"].message
    assert "'num_heads' is not one of the choices a, b, c" in checks["query_role"].message
    assert "'about sixty' is not a number" in checks["dot_product_variance_unscaled"].message
    assert "'2,5' is not a number" in checks["dot_product_variance_scaled"].message  # not 25
    assert "True is not a number" in checks["exercise_3_2_value"].message  # YAML's true is no 1
    assert checks["key_role"].status == Status.NOT_IMPLEMENTED and "not answered" in checks["key_role"].message
    state = quiz_state(QUIZ, package)
    assert set(state.malformed) == {"query_role", "dot_product_variance_unscaled", "dot_product_variance_scaled",
                                    "exercise_3_2_value"}
    assert state.answered == 2 and len(state.unanswered) == 3


def test_parse_number_refuses_what_is_not_one_number():
    assert parse_number("1e3") == 1000.0 and parse_number(".5") == 0.5 and parse_number(64) == 64.0
    for bad in ("nan", "inf", "1,2,3", "12,34", "1 000 0", "", "64 or 65", [64], False):
        assert parse_number(bad) is None, bad


def test_a_full_width_colon_after_a_key_is_read_as_a_colon(tmp_path):
    """`query_role：b` (a Chinese input method's colon) made the whole file unreadable: every answer lost."""
    package = answers_file(tmp_path, "  query_role：b\n  key_role：　a\n  exercise_3_2_argument: 'd_out：'\n")
    checks = graded(package)
    assert checks["query_role"].passed and checks["key_role"].passed
    assert "'d_out:' is not one of the choices" in checks["exercise_3_2_argument"].message  # a value: untouched
    (package / "quiz.yaml").write_text("answers:\n  query_role：[b\n", encoding="utf-8")  # still broken
    assert quiz_state(QUIZ, package).file_problem is not None


def test_an_answers_file_saved_in_gbk_is_read(tmp_path):
    """Old Notepad on a Chinese Windows saves the file (its comments are Chinese) in GBK: every answer was lost
    as "not valid YAML: 'utf-8' codec can't decode"."""
    package = answers_file(tmp_path, "  # 选择题：填字母\n  query_role: b\n")
    (package / "quiz.yaml").write_bytes((package / "quiz.yaml").read_text(encoding="utf-8").encode("gbk"))
    assert graded(package)["query_role"].passed
    (package / "quiz.yaml").write_bytes(b"answers:\n  query_role: \xff\xfe\n")  # neither: still named
    assert quiz_state(QUIZ, package).file_problem is not None


def test_file_problems_and_unknown_questions_are_named(tmp_path):
    package = answers_file(tmp_path, "  query_rol: b\n")
    assert problem_lines(QUIZ, quiz_state(QUIZ, package), "en") == [
        "quiz.yaml: not questions of the quiz (typo?): query_rol"]
    (package / "quiz.yaml").write_text("answers:\n  query_role: [b\n", encoding="utf-8")
    state = quiz_state(QUIZ, package)
    [line] = problem_lines(QUIZ, state, "zh")
    assert line.startswith("quiz.yaml 不是有效的 YAML") and "line 2" in line
    (package / "quiz.yaml").write_text("query_role: b\n", encoding="utf-8")
    assert "has no `answers:` mapping" in problem_lines(QUIZ, quiz_state(QUIZ, package), "en")[0]
    assert quiz_state(QUIZ, tmp_path).file_problem is None  # no file at all: simply nothing answered yet
