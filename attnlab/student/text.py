"""How a result reads for a student: `render_result` turns an ExerciseResult into the block shown by
`attnlab check` and by `check(...)` in a notebook; sentences come from the catalogue (attnlab.core.i18n).
"""

import unicodedata

from attnlab.core.i18n import known, t
from attnlab.core.results import CheckResult, ExerciseResult
from attnlab.core.spec import ExerciseSpec
from attnlab.core.status import Status


def say(key: str, lang: str, **values) -> str:
    """A sentence of the `attnlab` command (catalogue key "cli.<key>")."""
    return t(f"cli.{key}", lang, **values)


def status_word(status: str, lang: str) -> str:
    key = f"status.{status}"
    return t(key, lang) if known(key) else str(status)


def width(text: str) -> int:
    """Columns a terminal uses for `text` (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, columns: int) -> str:
    return text + " " * max(columns - width(text), 0)


def _indent(text: str, prefix: str) -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _check_lines(checks: tuple[CheckResult, ...], lang: str) -> list[str]:
    lines, not_run = [], 0
    for check in checks:
        kind = say(check.kind, lang)
        if check.passed:
            lines.append(f"  ✓ {kind} {check.name}")
        elif not check.message:
            not_run += 1  # skipped after a not-implemented or timeout outcome
        else:
            lines.append(f"  ✗ {kind} {check.name}: {status_word(check.status, lang)}")
            lines.append(_indent(check.message, "      "))
    if not_run:
        lines.append("  " + say("not_run", lang, count=not_run))
    return lines


def render_result(exercise: ExerciseSpec, result: ExerciseResult, lang: str) -> str:
    """The block `attnlab check` prints: heading, each check, hint, then the score line."""
    lines = [say("heading", lang, id=exercise.id, title=exercise.title.get(lang), points=exercise.points)]
    if result.status == Status.NOT_IMPLEMENTED:
        lines.append("  " + say("start_here", lang, function=exercise.function, module=exercise.module))
    lines += _check_lines(result.checks, lang)
    if result.status not in (Status.PASSED, Status.NOT_IMPLEMENTED):
        lines.append("  " + say("hints_title", lang, id=exercise.id))
        own = list(dict.fromkeys(c.hint for c in result.checks if not c.passed and c.hint))
        lines += [f"    - {hint}" for hint in own or exercise.hints.get(lang) or exercise.hints["en"]]
    lines.append(say("score", lang, score=result.score, points=exercise.points,
                     passed=sum(c.passed for c in result.checks), total=len(result.checks),
                     status=status_word(result.status, lang)))
    return "\n".join(lines)


def render_hints(exercise: ExerciseSpec, lang: str) -> str:
    """`attnlab hint`: what the function must do, then every hint of the spec."""
    hints = exercise.hints.get(lang) or exercise.hints["en"]
    heading = say("heading", lang, id=exercise.id, title=exercise.title.get(lang), points=exercise.points)
    return "\n".join([heading, say("what_to_do", lang), "  " + exercise.description.get(lang).strip(),
                      say("hints_title", lang, id=exercise.id), *[f"  - {hint}" for hint in hints]])
