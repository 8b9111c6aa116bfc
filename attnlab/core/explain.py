"""How a partial score was reached, in words: the formula of attnlab.core.scoring with one exercise's numbers.
Free of torch, like the texts of the student's commands."""

from attnlab.core.i18n import t
from attnlab.core.results import CheckResult
from attnlab.core.spec import ExerciseSpec


def earned_checks(checks: list[CheckResult], kind: str) -> tuple[int, int, int]:
    """(checks of `kind` that earn, how many there are, passed ones left out as trivial): a check an output
    of zeros passes too earns only once a check of its kind that such an output fails has passed."""
    of_kind = [c for c in checks if c.kind == kind]
    informative = any(c.passed and not c.trivial for c in of_kind)
    earned = sum(c.passed and (informative or not c.trivial) for c in of_kind)
    return earned, len(of_kind), sum(c.passed for c in of_kind) - earned


def score_explanation(exercise: ExerciseSpec, checks: list[CheckResult], score: float, lang: str) -> str:
    """`checks`: those that count (not the not-applicable ones)."""
    cases_passed, cases, trivial = earned_checks(checks, "case")
    laws_passed, laws, _ = earned_checks(checks, "property")
    law_part = t("score_how_laws", lang, laws_passed=laws_passed, laws=laws,
                 factor=(1 + laws_passed / laws) / 2) if laws else ""
    return t("score_how", lang, passed=sum(c.passed for c in checks), total=len(checks), points=exercise.points,
             cases_passed=cases_passed, cases=max(cases, 1), score=round(score, 2), laws=law_part,
             trivial=t("score_how_trivial", lang, count=trivial) if trivial else "")
