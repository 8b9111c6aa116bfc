"""Item analysis: how each case and law of every exercise behaved across the class.

An item is one check. Its population is the submissions whose code for that exercise ran (at least one
of the exercise's checks passed or failed on its output): a stub, an import error or a crash on every
check says nothing about one item. Per item: the pass rate p, a difficulty word from p, and the
discrimination, the point-biserial correlation between passing the item and the submission's total
score. Per exercise: the pass rates of its visible and of its hidden checks, and how many submissions
passed every visible check yet failed a hidden one (what a student at 100 % locally loses).

Items are flagged, worst first, when nobody passes them, when stronger submissions fail them more often
than weaker ones, when they hardly separate the two, or (hidden items) when they fail far more often
than the exercise's visible checks.
"""

import math
import statistics
from dataclasses import dataclass

from attnlab.core.status import EXCLUDED, Status

MIN_POPULATION = 10  # fewer submissions than this: rates and r are shown, only "never" is flagged
NEGATIVE, WEAK = -0.05, 0.15  # discrimination below NEGATIVE is flagged negative, below WEAK weak
HIDDEN_GAP = 0.25  # a hidden item this far below its exercise's visible pass rate is flagged
EASY, HARD = 0.8, 0.3  # pass rates at and above EASY are easy, below HARD hard
FLAGS = ("never", "negative", "hidden_gap", "weak")  # worst first; catalogue "report.flag.<flag>"
UNCOUNTED = EXCLUDED | {Status.NOT_RUN, Status.INTERNAL_ERROR}  # says nothing of the item or the student


@dataclass(frozen=True)
class Item:
    exercise: str
    name: str
    kind: str  # "case" or "property"
    visible: bool
    population: int
    passed: int
    discrimination: float | None  # None where undefined (everyone or no one passed, or equal totals)
    flags: tuple[str, ...] = ()

    @property
    def pass_rate(self) -> float:
        return self.passed / self.population if self.population else 0.0

    @property
    def difficulty(self) -> str:
        """easy / medium / hard (catalogue "report.difficulty.<word>")."""
        return "easy" if self.pass_rate >= EASY else "hard" if self.pass_rate < HARD else "medium"


@dataclass(frozen=True)
class ExerciseGap:
    exercise: str
    population: int
    visible_rate: float | None  # mean pass rate of the visible items; None without visible items
    hidden_rate: float | None
    visible_only: int  # submissions that passed every visible check and failed a hidden one

    @property
    def gap(self) -> float | None:
        if self.visible_rate is None or self.hidden_rate is None:
            return None
        return self.visible_rate - self.hidden_rate


def code_ran(exercise: dict) -> bool:
    return any(c["status"] in (Status.PASSED, Status.FAILED) for c in exercise.get("checks") or ())


def point_biserial(passed: list[bool], totals: list[float]) -> float | None:
    """Pearson correlation between a 0/1 outcome and a score; None where it is undefined."""
    p = sum(passed) / len(passed) if passed else 0.0
    spread = statistics.pstdev(totals) if totals else 0.0
    if p in (0.0, 1.0) or spread == 0.0:
        return None
    mean_pass = statistics.fmean(t for t, ok in zip(totals, passed) if ok)
    mean_fail = statistics.fmean(t for t, ok in zip(totals, passed) if not ok)
    return (mean_pass - mean_fail) / spread * math.sqrt(p * (1 - p))


def _outcomes(results: list[dict]) -> dict[tuple[str, str], dict]:
    """(exercise, check) -> its kind, visibility, and (passed, total score) per submission whose code ran."""
    items: dict[tuple[str, str], dict] = {}
    for result in results:
        for exercise in result["exercises"]:
            if not code_ran(exercise):
                continue
            for check in exercise["checks"]:
                item = items.setdefault((exercise["id"], check["name"]), {
                    "kind": check["kind"], "visible": bool(check["visible"]), "runs": []})
                if check["status"] not in UNCOUNTED:
                    item["runs"].append((bool(check["passed"]), float(result["score"])))
    return items


def _flags(item: Item, visible_rate: float | None) -> tuple[str, ...]:
    flags = []
    if item.population and item.passed == 0:
        flags.append("never")
    if item.population < MIN_POPULATION:
        return tuple(flags)  # rates and correlations of a handful of submissions are noise
    r = item.discrimination
    if r is not None:
        flags += ["negative"] if r < NEGATIVE else ["weak"] if r < WEAK else []
    if not item.visible and visible_rate is not None and item.pass_rate < visible_rate - HIDDEN_GAP:
        flags.append("hidden_gap")
    return tuple(sorted(flags, key=FLAGS.index))


def _worst_first(item: Item) -> tuple:
    first_flag = FLAGS.index(item.flags[0]) if item.flags else len(FLAGS)
    return (first_flag, item.pass_rate, item.discrimination if item.discrimination is not None else 1.0,
            item.exercise, item.name)


def analyse(results: list[dict], order: list[str]) -> tuple[list[Item], list[ExerciseGap]]:
    """Every item, worst first, and the visible/hidden gap of every exercise in course `order`."""
    raw = _outcomes(results)
    bare = {key: Item(key[0], key[1], v["kind"], v["visible"], len(v["runs"]), sum(ok for ok, _ in v["runs"]),
                      point_biserial([ok for ok, _ in v["runs"]], [s for _, s in v["runs"]]))
            for key, v in raw.items()}
    gaps = [exercise_gap(results, ex, [i for i in bare.values() if i.exercise == ex])
            for ex in sorted({k[0] for k in bare}, key=lambda e: (order.index(e) if e in order else len(order), e))]
    visible_rates = {g.exercise: g.visible_rate for g in gaps}
    items = [Item(**{**i.__dict__, "flags": _flags(i, visible_rates[i.exercise])}) for i in bare.values()]
    return sorted(items, key=_worst_first), gaps


def _mean_rate(items: list[Item]) -> float | None:
    counted = [i for i in items if i.population]
    return statistics.fmean(i.pass_rate for i in counted) if counted else None


def exercise_gap(results: list[dict], exercise_id: str, items: list[Item]) -> ExerciseGap:
    population, visible_only = 0, 0
    for result in results:
        ex = next((e for e in result["exercises"] if e["id"] == exercise_id), None)
        if ex is None or not code_ran(ex):
            continue
        population += 1
        counted = [c for c in ex["checks"] if c["status"] not in UNCOUNTED]
        visible_ok = all(c["passed"] for c in counted if c["visible"])
        visible_only += visible_ok and any(not c["passed"] for c in counted if not c["visible"])
    return ExerciseGap(exercise_id, population, _mean_rate([i for i in items if i.visible]),
                       _mean_rate([i for i in items if not i.visible]), visible_only)
