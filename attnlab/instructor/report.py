"""An HTML class report from a grade.py output directory: where the class struggles.

    python -m attnlab.instructor.report DIR [-o DIR/report.html] [--lang en|zh]

Reads DIR/<submission>.json (never grading-run.json, which holds the secret seed) and writes one
self-contained HTML file: a score histogram and per-exercise pass rates (matplotlib PNGs embedded as
data: URIs), the most frequent diagnosed misconceptions per exercise, and a table of submissions. No
external resources; every submission name and feedback text is escaped by the template engine.
"""

import argparse
import base64
import io
import statistics
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from attnlab.core import paths
from attnlab.core.i18n import default_lang, t
from attnlab.core.spec import Course, SpecError
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status
from attnlab.grade.batch.outputs import read_result

TEMPLATES = Path(__file__).resolve().parent / "templates"
TOP_MISCONCEPTIONS = 3
FEEDBACK_CAP = 600
REPORT_WORDS = ("title", "source", "submissions", "mean", "median", "histogram", "pass_rates", "exercise",
                "passed", "mean_score", "statuses", "misconceptions", "no_misconceptions", "table", "submission",
                "score", "count", "share")


class ReportError(ValueError):
    """The directory holds nothing to report on; the message names it."""


@dataclass
class ExerciseStats:
    id: str
    title: str
    max_score: float
    attempts: int = 0
    passed: int = 0
    score_sum: float = 0.0
    statuses: Counter = field(default_factory=Counter)
    diagnoses: Counter = field(default_factory=Counter)  # misconception id -> submissions showing it
    messages: dict = field(default_factory=dict)  # misconception id -> sentence (from the spec)

    @property
    def pass_rate(self) -> float:
        return self.passed / self.attempts if self.attempts else 0.0

    @property
    def mean_score(self) -> float:
        return self.score_sum / self.attempts if self.attempts else 0.0

    def top_misconceptions(self) -> list[tuple[str, str, int]]:
        top = self.diagnoses.most_common(TOP_MISCONCEPTIONS)
        return [(mid, self.messages.get(mid, ""), n) for mid, n in top]


def load_results(results_dir: Path) -> list[dict]:
    """Every complete submission result in the directory, by name."""
    if not results_dir.is_dir():
        raise ReportError(f"{results_dir} is not a directory (give the --out directory of grade.py)")
    results = [r for p in sorted(results_dir.glob("*.json")) if (r := read_result(p)) is not None]
    if not results:
        raise ReportError(f"{results_dir} holds no grade.py results (<submission>.json)")
    return sorted(results, key=lambda r: str(r["submission"]))


def _course(results: list[dict]) -> Course | None:
    """The course of the assignment the results were graded for."""
    assignments = sorted({str(r.get("assignment", "attention")) for r in results})
    try:
        return load_course(paths.SPEC_DIR, assignments[0] if len(assignments) == 1 else None)
    except (SpecError, OSError):
        return None  # titles and misconception sentences are then left out, ids still shown


def exercise_stats(results: list[dict], course: Course | None, lang: str) -> list[ExerciseStats]:
    specs = {e.id: e for e in course.exercises} if course else {}
    stats: dict[str, ExerciseStats] = {}
    for result in results:
        for ex in result["exercises"]:
            spec = specs.get(ex["id"])
            row = stats.setdefault(ex["id"], ExerciseStats(
                id=ex["id"], title=spec.title.get(lang) if spec else "", max_score=float(ex["max_score"]),
                messages={m.id: m.message.get(lang) for m in getattr(spec, "misconceptions", ())}))
            row.attempts += 1
            row.passed += ex["status"] == Status.PASSED
            row.score_sum += float(ex["score"])
            row.statuses[str(ex["status"])] += 1
            row.diagnoses.update(set(map(str, ex.get("diagnoses") or ())))
    order = [e.id for e in course.exercises] if course else []
    return sorted(stats.values(), key=lambda s: (order.index(s.id) if s.id in order else len(order), s.id))


def _png(fig) -> str:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=100)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def histogram(results: list[dict]) -> str:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    percents = [100.0 * r["score"] / r["max_score"] if r["max_score"] else 0.0 for r in results]
    fig = Figure(figsize=(7, 3.2), layout="constrained")
    ax = fig.subplots()
    ax.hist(percents, bins=[10 * i for i in range(11)], color="#3b6ea5", edgecolor="white")
    ax.set_xlabel("% " + t("report.score", "en"))
    ax.set_ylabel(t("report.count", "en"))
    ax.set_xlim(0, 100)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    return _png(fig)


def pass_rates(stats: list[ExerciseStats]) -> str:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 0.35 * len(stats) + 1.0), layout="constrained")
    ax = fig.subplots()
    ax.barh([s.id for s in stats][::-1], [100 * s.pass_rate for s in stats][::-1], color="#4c9a5b")
    ax.set_xlim(0, 100)
    ax.set_xlabel("% " + t("report.passed", "en"))
    return _png(fig)


def _cell(ex: dict) -> dict:
    status = str(ex["status"])
    return {"status": status, "css": status if status in {s.value for s in Status} else "other",
            "score": float(ex["score"]), "feedback": str(ex.get("feedback", ""))[:FEEDBACK_CAP]}


def submission_rows(results: list[dict], exercise_ids: list[str]) -> list[dict]:
    rows = []
    for r in sorted(results, key=lambda r: (-float(r["score"]), str(r["submission"]))):
        by_id = {ex["id"]: _cell(ex) for ex in r["exercises"]}
        rows.append({"name": str(r["submission"]), "score": float(r["score"]),
                     "max_score": float(r["max_score"]), "cells": [by_id.get(i) for i in exercise_ids]})
    return rows


def render(results_dir: Path, *, lang: str) -> str:
    import matplotlib

    matplotlib.use("Agg")
    results = load_results(results_dir)
    stats = exercise_stats(results, _course(results), lang)
    scores = [float(r["score"]) for r in results]
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(["html", "j2"]),
                      undefined=StrictUndefined)
    return env.get_template("report.html.j2").render(
        text={key: t(f"report.{key}", lang) for key in REPORT_WORDS}, lang=lang,
        source=str(results_dir), count=len(results), mean=statistics.fmean(scores),
        median=statistics.median(scores), max_score=max(float(r["max_score"]) for r in results),
        histogram=histogram(results), pass_rates=pass_rates(stats), stats=stats,
        rows=submission_rows(results, [s.id for s in stats]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.report", description=__doc__.split("\n")[0])
    parser.add_argument("results_dir", type=Path, help="a grade.py --out directory")
    parser.add_argument("-o", "--output", type=Path, help="HTML file (default: RESULTS_DIR/report.html)")
    parser.add_argument("--lang", choices=["en", "zh"], default=None,
                        help="report language (default: locale)")
    opts = parser.parse_args(argv)
    try:
        html = render(opts.results_dir, lang=opts.lang or default_lang())
    except ReportError as exc:
        print(f"python -m attnlab.instructor.report: {exc}", file=sys.stderr)
        return 2
    output = opts.output or opts.results_dir / "report.html"
    output.write_text(html, encoding="utf-8")
    print(f"wrote {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
