"""Typed results: one ExerciseResult per exercise, one SubmissionResult per graded submission.

These are the only shapes results take; JSON, CSV, Gradescope and the HTML report are views of them.
"""

import copy
from dataclasses import dataclass, field, fields

from attnlab.core.frameworks.names import DEFAULT as DEFAULT_FRAMEWORK
from attnlab.core.status import Status


def score_text(score: float, max_score: float) -> str:
    """A score as every command, table and file shows it: two decimals, out of the points as the spec gives
    them ("11.67 / 94")."""
    return f"{score:.2f} / {max_score:g}"


def points_cell(value: float | str) -> str:
    """A number of points in a CSV cell: two decimals ("" stays empty)."""
    return "" if value == "" else f"{float(value):.2f}"


@dataclass(frozen=True)
class CheckResult:
    """One case or property check inside an exercise."""

    name: str
    passed: bool
    status: Status
    message: str = ""
    diagnosis: str = ""  # misconception id matched, if any
    kind: str = "case"  # "case" (compared with expected values) or "property" (a law)
    hint: str = ""  # advice for this failure, shown instead of the exercise's general hint
    trivial: bool = False  # passed, but a constant function would pass it too (see attnlab.core.scoring)
    excess: float | None = None  # a compared case's worst error / its tolerance (compare.excess; < 1 passes)
    visible: bool = True  # the spec's `visible`: students run this check on their own machine
    internal: str = ""  # Status.INTERNAL_ERROR: the judge's traceback, for the instructor (never in feedback)

    def to_json(self) -> dict:
        """What item analysis needs (the message is in the exercise's feedback), and a judge's traceback."""
        data = {"name": self.name, "kind": self.kind, "visible": self.visible, "passed": self.passed,
                "status": str(self.status), "diagnosis": self.diagnosis}
        if self.internal:
            data["internal"] = self.internal
        return data


@dataclass(frozen=True)
class ExerciseResult:
    id: str
    function: str | None  # the run_* name; None for the quiz
    score: float
    max_score: float
    status: Status
    feedback: str
    checks: tuple[CheckResult, ...] = field(default=())

    def to_json(self) -> dict:
        return {"id": self.id, "function": self.function, "score": self.score, "max_score": self.max_score,
                "status": str(self.status), "feedback": self.feedback,
                "diagnoses": sorted({c.diagnosis for c in self.checks if c.diagnosis}),
                "checks": [c.to_json() for c in self.checks]}


@dataclass(frozen=True)
class SubmissionResult:
    submission: str
    score: float
    max_score: float
    exercises: tuple[ExerciseResult, ...]
    started_at: str
    duration_s: float
    harness_version: str
    assignment: str = "attention"  # course.yaml's assignment id the submission was graded for
    framework: str = DEFAULT_FRAMEWORK  # what the submission was written in and graded as (a framework's name)
    origin: dict | None = None  # where the submission came from and who handed it in (grade.py's intake)
    not_graded: str | None = None  # why nothing could be graded (no package, a bad zip, ...): score is no grade
    notebook: dict | None = None  # graded from a notebook: its file, code cells, run_* cells, notes (notebooks.py)
    # what was graded, as handed in (grade.batch.submissions.fingerprint): a rerun regrades it if it changed
    source_digest: str | None = None
    # what it was graded with: specs, reference, grader, limits (grade.batch.checks_digest); a rerun regrades
    # it if they changed
    checks_digest: str | None = None

    def to_json(self) -> dict:
        # field by field: asdict() would deep-copy every exercise's checks only to have them replaced; the
        # rest is copied as asdict copies it (origin and notebook are dicts a caller may change)
        return {f.name: [e.to_json() for e in self.exercises] if f.name == "exercises"
                else copy.deepcopy(getattr(self, f.name)) for f in fields(self)}
