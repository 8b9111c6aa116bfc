"""The quiz: the student's answers file, the answer key (reference/<answers_file>, instructors only) and how
answers score. Each question scores its own points; the quiz has no function (results show null).

An answer is read before it is judged: a numeric answer is a number (thousands separators allowed:
`2,360,064`, `2 360 064`, `2_360_064`), a choice is one of the keys the answers file shows (`b`, also
`b)` or the choice's own text). Anything else is a format problem, reported as such by `attnlab status`,
`attnlab submit` and grading, never silently counted as "answered" or as a wrong answer.
"""

import math
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from attnlab.core import paths
from attnlab.core.i18n import Message, decoded, t
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.spec import QuizQuestion, QuizSpec
from attnlab.core.spec_load import load_safe_yaml
from attnlab.core.status import Status

MAX_ANSWERS_BYTES = 64 * 1024
# digits in groups of three after the first, one separator throughout: "2,5" is not 25
FULL_WIDTH_COLON = re.compile(r"^(\s*[A-Za-z_]\w*)\s*：[ \t\u3000]*", re.MULTILINE)  # `  key：` at a line's start
GROUPED = re.compile(r"[+-]?\d{1,3}(?P<sep>[,_ \u00a0\u202f'])\d{3}(?:(?P=sep)\d{3})*(?:\.\d+)?")


class AnswersFileError(ValueError):
    """The answers file exists but is not a readable YAML mapping with `answers:`; the message says why."""

    def __init__(self, message: Message):
        self.message = message
        super().__init__(message.text("en"))


def load_answers(path: Path) -> dict[str, Any]:
    """Answers in a YAML file (data only, size-capped, safe YAML); {} when the file is absent;
    AnswersFileError naming the file and the problem when it cannot be read as answers."""
    if not path.is_file():
        return {}
    if path.stat().st_size > MAX_ANSWERS_BYTES:
        raise AnswersFileError(Message("quiz_file_too_big", {"file": path.name, "kb": MAX_ANSWERS_BYTES >> 10}))
    try:
        # GB18030 too (old Notepad): the template's Chinese comments made the whole file, every answer, unreadable
        text = decoded(path.read_bytes())
        try:
            data = load_safe_yaml(text)
        except yaml.YAMLError:
            # `question_id：a`, a Chinese input method's full-width colon after a key, made the whole file
            # unreadable (every answer lost): read as `question_id: a` when that makes it YAML
            fixed = FULL_WIDTH_COLON.sub(r"\1: ", text)
            if fixed == text:
                raise
            data = load_safe_yaml(fixed)
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise AnswersFileError(Message("quiz_file_unreadable", {"file": path.name,
                                                                "problem": " ".join(str(exc).split())})) from None
    answers = data.get("answers") if isinstance(data, dict) else None
    if not isinstance(answers, dict):
        raise AnswersFileError(Message("quiz_file_no_answers", {"file": path.name}))
    return answers


def read_answers(path: Path) -> dict[str, Any]:
    """load_answers, with an unreadable file read as no answers (grading: it scores nothing)."""
    try:
        return load_answers(path)
    except AnswersFileError:
        return {}


def answer_key(quiz: QuizSpec) -> dict[str, Any] | None:
    """The quiz's key, from reference/: None where it is not shipped (a student handout)."""
    path = paths.REFERENCE_DIR / quiz.answers_file
    return read_answers(path) if path.is_file() else None


@dataclass(frozen=True)
class Answer:
    """One answer as read: `value` is a float (numeric) or a choice key; `problem` says why it could not
    be read (then value is None). Unanswered: both None."""

    value: float | str | None = None
    problem: Message | None = None

    @property
    def given(self) -> bool:
        return self.value is not None or self.problem is not None


def parse_number(given: Any) -> float | None:
    """A finite number from a YAML value: an int or float, or text like `64`, `0.5`, `1e3`, `2,360,064`."""
    if isinstance(given, bool):  # YAML's true/false are ints to Python, not answers
        return None
    if isinstance(given, (int, float)):
        number = float(given)
    elif isinstance(given, str):
        text = given.strip()
        if GROUPED.fullmatch(text):
            text = re.sub(r"[,_ \u00a0\u202f']", "", text)
        try:
            number = float(text)
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _normalise(text: str) -> str:
    return " ".join(str(text).split()).lower()


def parse_choice(question: QuizQuestion, given: Any) -> str | None:
    """The key of the choice `given` names: the key itself (any case, `b)` or `(b)` too) or its text."""
    if isinstance(given, bool) or not isinstance(given, (str, int, float)):
        return None
    said = _normalise(given).strip("()").strip()
    for key, choice in question.choices.items():
        if said == _normalise(key) or said in {_normalise(choice.en), _normalise(choice.zh)}:
            return key
    return None


def parse_answer(question: QuizQuestion, given: Any) -> Answer:
    if isinstance(given, str):  # a Chinese input method's full-width forms: （ｂ）, b）, ０．５, ２，３６０，０６４
        given = unicodedata.normalize("NFKC", given)
    if given is None or (isinstance(given, str) and not given.strip()):
        return Answer()
    if question.kind == "numeric":
        number = parse_number(given)
        return Answer(number) if number is not None else Answer(problem=Message("quiz_not_a_number",
                                                                                {"given": repr(given)}))
    key = parse_choice(question, given)
    if key is not None:
        return Answer(key)
    return Answer(problem=Message("quiz_not_a_choice", {"given": repr(given), "keys": ", ".join(question.choices)}))


@dataclass(frozen=True)
class QuizState:
    """What the answers file holds, before grading: which questions are answered, and what is malformed."""

    answers: dict[str, Answer]  # question id -> its answer (unanswered ones included)
    unknown: tuple[str, ...]  # ids in the file that are no question of the quiz (a typo?)
    file_problem: Message | None  # the file could not be read at all

    @property
    def unanswered(self) -> list[str]:
        return [qid for qid, a in self.answers.items() if not a.given]

    @property
    def malformed(self) -> dict[str, Message]:
        return {qid: a.problem for qid, a in self.answers.items() if a.problem is not None}

    @property
    def answered(self) -> int:
        """Answers that are well-formed (right or wrong)."""
        return sum(a.value is not None for a in self.answers.values())


def quiz_state(quiz: QuizSpec, package: Path) -> QuizState:
    """Read and check the package's answers file (no key needed: students run this)."""
    try:
        raw, problem = load_answers(package / quiz.answers_file), None
    except AnswersFileError as exc:
        raw, problem = {}, exc.message
    ids = {q.id for q in quiz.questions}
    return QuizState(answers={q.id: parse_answer(q, raw.get(q.id)) for q in quiz.questions},
                     unknown=tuple(str(k) for k in raw if k not in ids), file_problem=problem)


def problem_lines(quiz: QuizSpec, state: QuizState, lang: str) -> list[str]:
    """One line per format problem of the answers file (empty when every answer given is well-formed)."""
    file = quiz.answers_file
    if state.file_problem is not None:
        return [state.file_problem.text(lang)]
    lines = [t("quiz_format_line", lang, file=file, id=qid, problem=problem)
             for qid, problem in state.malformed.items()]
    if state.unknown:
        lines.append(t("quiz_unknown_ids", lang, file=file, ids=", ".join(state.unknown)))
    return lines


def _correct(question: QuizQuestion, answer: Answer, expected: Any) -> bool:
    key = parse_answer(question, expected)
    if answer.value is None or key.value is None:
        return False
    if question.kind == "numeric":
        return abs(answer.value - key.value) <= question.tolerance
    return answer.value == key.value


def grade_quiz(quiz: QuizSpec, answers: dict[str, Any], key: dict[str, Any], *, lang: str) -> ExerciseResult:
    checks = []
    for q in quiz.questions:
        answer = parse_answer(q, answers.get(q.id))
        ok = _correct(q, answer, key.get(q.id))
        status = Status.PASSED if ok else (Status.FAILED if answer.given else Status.NOT_IMPLEMENTED)
        if not answer.given:
            verdict = t("quiz_not_answered", lang)
        else:
            verdict = answer.problem.text(lang) if answer.problem else t("quiz_wrong", lang,
                                                                          given=repr(answers.get(q.id)))
        message = "" if ok else t("quiz_line", lang, id=q.id, prompt=q.prompt.get(lang), verdict=verdict)
        checks.append(CheckResult(q.id, ok, status, message))
    return summarise_quiz(quiz, checks, lang)


def summarise_quiz(quiz: QuizSpec, checks: list[CheckResult], lang: str) -> ExerciseResult:
    points = {q.id: q.points for q in quiz.questions}
    score = sum(points[c.name] for c in checks if c.passed)
    statuses = {c.status for c in checks}
    status = Status.PASSED if statuses == {Status.PASSED} else (
        Status.NOT_IMPLEMENTED if statuses == {Status.NOT_IMPLEMENTED} else Status.FAILED)
    failures = [c.message for c in checks if c.message]
    return ExerciseResult(id=quiz.id, function=None, score=score, max_score=quiz.points, status=status,
                          feedback="\n".join(failures) or t("passed", lang), checks=tuple(checks))


def answers_template(quiz: QuizSpec) -> str:
    """The answers file a student starts from: every question as a comment (both languages) and a null."""
    lines = ["# Your quiz answers: replace each null. Numbers for numeric questions (64, 0.5, 2,360,064),\n",
             "# the letter before the ')' for choices (a, b, ...). `attnlab status` checks the format.\n",
             "# 你的小测验答案：把每个 null 换成答案。数值题填数字，选择题填 “)” 前面的字母。\n",
             "answers:\n"]
    for q in quiz.questions:
        lines.append(f"  # {q.prompt.en} / {q.prompt.zh}\n")
        for key, choice in q.choices.items():
            both = choice.en if choice.zh == choice.en else f"{choice.en} / {choice.zh}"
            lines.append(f"  #   {key}) {both}\n")
        lines.append(f"  {q.id}: null\n")
    return "".join(lines)
