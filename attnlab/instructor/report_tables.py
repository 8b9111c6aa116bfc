"""What the class report shows, as plain data for its template: per-exercise rates, misconceptions with
examples, the submissions table and one section of full feedback per submission.

Results are grade.py's JSON (attnlab.grade.batch.outputs); every string from them is untrusted and is
escaped by the template. Status words come from the catalogue ("status.<value>").
"""

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from attnlab.core import precision
from attnlab.core.i18n import known, t
from attnlab.core.spec import Course
from attnlab.core.status import Status
from attnlab.instructor.items import code_ran
from attnlab.instructor.report_notebook import exercise_links, notebook_view

FEEDBACK_CAP = 20_000  # characters of one exercise's feedback shown in full (a runner's output tail is long)
TOOLTIP_CAP = 300
EXAMPLES = 3  # example submissions per misconception
STATUS_CSS = {s.value for s in Status}


def status_word(status: str, lang: str) -> str:
    key = f"status.{status}"
    return t(key, lang) if known(key) else str(status)


def css(status: str) -> str:
    return status if status in STATUS_CSS else "other"


@dataclass
class ExerciseStats:
    id: str
    title: str
    max_score: float
    attempts: int = 0
    ran: int = 0  # submissions whose code for the exercise ran
    passed: int = 0
    score_sum: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    diagnoses: Counter = field(default_factory=Counter)  # misconception id -> submissions showing it
    examples: dict = field(default_factory=lambda: defaultdict(list))  # misconception id -> submission names
    messages: dict = field(default_factory=dict)  # misconception id -> sentence (from the spec)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.attempts if self.attempts else 0.0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.attempts if self.attempts else 0.0


def _new_stats(exercise_id: str, max_score: float, course: Course | None, lang: str) -> ExerciseStats:
    spec = next((e for e in course.exercises if e.id == exercise_id), None) if course else None
    return ExerciseStats(id=exercise_id, title=spec.title.get(lang) if spec else "", max_score=max_score,
                         messages={m.id: m.message.get(lang) for m in (precision.diagnosis(),
                                                                       *getattr(spec, "misconceptions", ()))})


def exercise_stats(results: list[dict], course: Course | None, lang: str) -> list[ExerciseStats]:
    """One row per exercise, in course order; results are sorted by submission name."""
    stats: dict[str, ExerciseStats] = {}
    for result in results:
        for ex in result["exercises"]:
            row = stats.get(ex["id"]) or stats.setdefault(ex["id"], _new_stats(ex["id"], float(ex["max_score"]),
                                                                                  course, lang))
            row.attempts += 1
            row.ran += code_ran(ex)
            row.passed += ex["status"] == Status.PASSED
            row.score_sum += float(ex["score"])
            row.statuses[str(ex["status"])] += 1
            for mid in sorted(set(map(str, ex.get("diagnoses") or ()))):
                row.diagnoses[mid] += 1
                row.examples[mid].append(str(result["submission"]))
    order = [e.id for e in course.exercises] if course else []
    return sorted(stats.values(), key=lambda s: (order.index(s.id) if s.id in order else len(order), s.id))


def status_counts(row: ExerciseStats, lang: str) -> list[dict]:
    return [{"word": status_word(s, lang), "css": css(s), "count": n}
            for s, n in row.statuses.most_common() if s != Status.PASSED]


LEGEND = (Status.PASSED, Status.FAILED, Status.NOT_IMPLEMENTED, Status.ERROR, Status.FORBIDDEN, Status.TIMEOUT)


def legend(lang: str) -> list[dict]:
    """The colours of the submissions table, with their status words."""
    return [{"css": css(s.value), "word": status_word(s.value, lang)} for s in LEGEND]


def misconception_rows(stats: list[ExerciseStats], anchors: dict[str, str]) -> list[dict]:
    """Every diagnosed misconception, by exercise in course order, most frequent first."""
    rows = []
    for row in stats:
        ordered = sorted(row.diagnoses.items(), key=lambda item: (-item[1], item[0]))
        for i, (mid, n) in enumerate(ordered):
            rows.append({"exercise": row.id, "span": len(ordered) if i == 0 else 0, "id": mid,
                         "message": row.messages.get(mid, ""), "count": n, "share": n / row.ran if row.ran else 0.0,
                         "examples": [(name, anchors[name]) for name in row.examples[mid][:EXAMPLES]]})
    return rows


def anchors_for(results: list[dict]) -> dict[str, str]:
    """Submission name -> the id of its section (names are untrusted: never used as ids)."""
    return {str(r["submission"]): f"sub-{i}" for i, r in enumerate(results)}


def submission_rows(results: list[dict], exercise_ids: list[str], anchors: dict[str, str], lang: str) -> list[dict]:
    """The submissions table, best first; a cell per exercise with its status word and score."""
    rows = []
    for r in sorted(results, key=lambda r: (bool(r.get("not_graded")), -float(r["score"]), str(r["submission"]))):
        by_id = {ex["id"]: ex for ex in r["exercises"]}
        cells = []
        for exercise_id in exercise_ids:
            ex = by_id.get(exercise_id)
            cells.append(None if ex is None else {
                "css": css(str(ex["status"])), "word": status_word(str(ex["status"]), lang),
                "score": float(ex["score"]), "tip": str(ex.get("feedback", "")).split("\n", 1)[0][:TOOLTIP_CAP]})
        rows.append({"name": str(r["submission"]), "anchor": anchors[str(r["submission"])],
                     "score": float(r["score"]), "max_score": float(r["max_score"]), "cells": cells,
                     "not_graded": bool(r.get("not_graded"))})
    return rows


def _upload_error(exercises: list[dict]) -> str | None:
    """The one message of a submission that failed as a whole (a bad upload, an import error)."""
    feedback = {str(ex.get("feedback", "")) for ex in exercises}
    whole = exercises and all(ex["status"] == Status.ERROR and not code_ran(ex) for ex in exercises)
    return feedback.pop() if whole and len(feedback) == 1 else None


def submission_sections(results: list[dict], stats: list[ExerciseStats], anchors: dict[str, str],
                        lang: str) -> list[dict]:
    """One section per submission (by name): every exercise with its status, diagnoses and full feedback."""
    messages = {s.id: s.messages for s in stats}
    sections = []
    for r in results:
        exercises = list(r["exercises"])
        anchor = anchors[str(r["submission"])]
        notebook = notebook_view(r, anchor)  # a notebook's cells, linked from its feedback
        sections.append({
            "name": str(r["submission"]), "anchor": anchor, "score": float(r["score"]),
            "max_score": float(r["max_score"]), "upload_error": _upload_error(exercises), "notebook": notebook,
            "exercises": [{
                "id": str(ex["id"]), "css": css(str(ex["status"])), "word": status_word(str(ex["status"]), lang),
                "quiet": ex["status"] in (Status.PASSED, Status.NOT_IMPLEMENTED), "score": float(ex["score"]),
                "max_score": float(ex["max_score"]),
                **exercise_links(notebook, anchor, ex.get("function"), str(ex.get("feedback", ""))[:FEEDBACK_CAP]),
                "diagnoses": [(str(mid), messages.get(ex["id"], {}).get(mid, "")) for mid in ex.get("diagnoses") or ()],
            } for ex in exercises]})
    return sections
