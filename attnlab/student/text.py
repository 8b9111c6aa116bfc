"""How a result reads for a student: `render_result` turns an ExerciseResult into the block shown by
`attnlab check` and by `check(...)` in a notebook; sentences come from the catalogue (attnlab.core.i18n).
"""

from dataclasses import dataclass

from attnlab.core.explain import score_explanation
from attnlab.core.i18n import known, t
from attnlab.core.quiz import QuizState
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.said_once import SaidOnce
from attnlab.core.spec import ExerciseSpec
from attnlab.core.status import EXCLUDED, Status


def say(key: str, lang: str, **values) -> str:
    """A sentence of the `attnlab` command (catalogue key "cli.<key>")."""
    return t(f"cli.{key}", lang, **values)


def status_word(status: str, lang: str) -> str:
    key = f"status.{status}"
    return t(key, lang) if known(key) else str(status)


def quiz_word(state: QuizState, lang: str) -> str:
    """The quiz's status in `attnlab status`: a format problem first, else how much is answered."""
    if state.file_problem is not None or state.malformed or state.unknown:
        return t("student.quiz_to_fix", lang)
    key = ("quiz_answered" if not state.unanswered else
           "quiz_unanswered" if len(state.unanswered) == len(state.answers) else "quiz_partly")
    return t(f"student.{key}", lang)


@dataclass(frozen=True)
class Line:
    """One line of feedback, what it is and how deep it sits; rendered as text (`as_text`) or as HTML
    for a notebook (attnlab.student.html_view), so both show the same thing."""

    text: str
    kind: str = "plain"  # heading, passed, failed, excluded (not applicable), detail, note, hint, score
    depth: int = 0

    MARKS = {"passed": "✓ ", "failed": "✗ ", "excluded": "– ", "hint": "- "}

    def as_text(self) -> str:
        prefix = "  " * self.depth + self.MARKS.get(self.kind, "")
        return "\n".join(prefix + line for line in self.text.splitlines() or [""])


def as_text(lines: list[Line]) -> str:
    return "\n".join(line.as_text() for line in lines)


def _check_lines(checks: tuple[CheckResult, ...], lang: str) -> list[Line]:
    lines, not_run, repeated, shown, once = [], 0, 0, set(), SaidOnce(lang)
    for check in checks:
        kind = say(check.kind, lang)
        if check.passed:
            lines.append(Line(f"{kind} {check.name}", "passed", 1))
        elif check.status in EXCLUDED:  # left out of the score: said, and why, never as a failure
            lines.append(Line(f"{kind} {check.name}: {check.message.splitlines()[-1].strip()}", "excluded", 1))
        elif not check.message:
            not_run += 1  # skipped after a not-implemented or timeout outcome
        elif check.message in shown:
            repeated += 1  # word for word a failure above (code that does not import): said once
        else:
            shown.add(check.message)
            lines.append(Line(f"{kind} {check.name}: {status_word(check.status, lang)}", "failed", 1))
            lines.append(Line(once.filter(check.message), "detail", 3))  # each diagnosis under its first case
    if repeated:
        lines.append(Line(t("student.same_failure", lang, count=repeated), "note", 1))
    if not_run:
        lines.append(Line(say("not_run", lang, count=not_run), "note", 1))
    return lines


def result_lines(exercise: ExerciseSpec, result: ExerciseResult, lang: str, *, notebook: bool = False,
                 note: str | None = None) -> list[Line]:
    """Heading, each check, hints, then the score line: what `attnlab check` and check() show (`notebook`:
    where to start is the function's cell, not its module; `note`: a line to read first, under the heading)."""
    lines = [Line(say("heading", lang, id=exercise.id, title=exercise.title.get(lang), points=exercise.points),
                  "heading")]
    if note:
        lines.append(Line(note, "note", 1))
    if result.status == Status.NOT_IMPLEMENTED:
        start = t("nb.start_here", lang, function=exercise.function) if notebook else \
            say("start_here", lang, function=exercise.function, module=exercise.module)
        lines.append(Line(start, "note", 1))
    lines += _check_lines(result.checks, lang)
    if result.status not in (Status.PASSED, Status.NOT_IMPLEMENTED):
        lines.append(Line(say("hints_title", lang, id=exercise.id), "note", 1))
        own = list(dict.fromkeys(c.hint for c in result.checks if not c.passed and c.hint))
        lines += [Line(hint, "hint", 2) for hint in own or exercise.hints.get(lang) or exercise.hints["en"]]
    passed, total = counted(result.checks)
    lines.append(Line(say("score", lang, score=result.score, points=exercise.points, passed=passed, total=total,
                          status=status_word(result.status, lang)), "score"))
    if result.status == Status.FAILED and passed:  # some checks passed: how they turned into points
        scored = [c for c in result.checks if c.status not in EXCLUDED]
        lines.append(Line(score_explanation(exercise, scored, result.score, lang), "note", 1))
    return lines


def counted(checks) -> tuple[int, int]:
    """(passed, checks) among those that count: a check not applicable in the framework is neither."""
    scored = [c for c in checks if c.status not in EXCLUDED]
    return sum(c.passed for c in scored), len(scored)


def render_result(exercise: ExerciseSpec, result: ExerciseResult, lang: str, *, note: str | None = None) -> str:
    """The block `attnlab check` prints."""
    return as_text(result_lines(exercise, result, lang, note=note))


def hint_lines(exercise: ExerciseSpec, lang: str) -> list[Line]:
    """What the function must do, then every hint of the spec."""
    hints = exercise.hints.get(lang) or exercise.hints["en"]
    heading = say("heading", lang, id=exercise.id, title=exercise.title.get(lang), points=exercise.points)
    return [Line(heading, "heading"), Line(say("what_to_do", lang)),
            Line(exercise.description.get(lang).strip(), "plain", 1), Line(say("hints_title", lang, id=exercise.id)),
            *[Line(hint, "hint", 1) for hint in hints]]


def render_hints(exercise: ExerciseSpec, lang: str) -> str:
    """`attnlab hint`."""
    return as_text(hint_lines(exercise, lang))
