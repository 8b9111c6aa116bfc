"""The mutation corpus: realistic buggy implementations that the checks must catch, and correct
alternatives that must pass them all.

    tests/mutations/<exercise_id>/bug_<name>.py   a wrong run_* (DIAGNOSIS = "<misconception id>" or None)
    tests/mutations/<exercise_id>/alt_<name>.py   a correct run_* written differently from the reference
    tests/mutations/<exercise_id>/<framework>/... the same, written in numpy, jax or mindspore

Optional module constants, read without running the file: ALSO_DIAGNOSED = ("<id>", ...) for a bug whose
output on some case also equals another misconception's (a justified overlap); PENDING = "<why>" for an
entry that does not behave yet because of a known gap in the checks (it is reported, not counted, and
flagged as soon as it behaves, so the marker is removed when the gap is closed).

    python -m attnlab.instructor.mutants                     # every exercise: which checks catch each bug
    python -m attnlab.instructor.mutants rope                # one exercise's quality report
    python -m attnlab.instructor.mutants --framework jax     # one framework's entries (default: every
                                                             # framework installed here; others are listed)

Each exercise ends with its mutation score (bugs caught, alternatives passing) and its margins: the bug
whose output comes closest to passing (its smallest error as a multiple of the tolerance, over the cases
that compare values: the larger, the safer the tolerance) and the correct alternative that comes closest to
failing (its largest; below 1 passes). A bug caught only by laws, shapes or errors has no such ratio and is
not in the first figure.

Exit status 1 when a bug escapes every check or is not diagnosed as its DIAGNOSIS says, an alternative
fails a check, or a PENDING entry already behaves.
"""

import argparse
import ast
import sys
import time
import warnings
from dataclasses import dataclass
from pathlib import Path

from attnlab.core import config, frameworks, paths
from attnlab.core.impl import FileImpl
from attnlab.core.results import CheckResult
from attnlab.core.scoring import make_context, run_checks
from attnlab.core.spec import Course, SpecError
from attnlab.core.spec_load import load_course
from attnlab.core.status import Status

CORPUS_DIR = paths.ROOT / "tests" / "mutations"
KINDS = {"bug_": "bug", "alt_": "alt"}


@dataclass(frozen=True)
class Mutant:
    exercise: str
    kind: str  # "bug" | "alt"
    path: Path
    diagnosis: str | None = None  # the misconception id a bug should be diagnosed as
    also_diagnosed: tuple[str, ...] = ()  # other ids its output may legitimately match on some case
    pending: str = ""  # why this entry does not behave yet (a known gap in the checks)
    # what it is written in: its folder's name, tests/mutations/<exercise>/<framework>/ for all but the default
    framework: str = frameworks.DEFAULT

    @property
    def adapter(self):
        return frameworks.adapter(self.framework)

    @property
    def name(self) -> str:
        inside = f"{self.framework}/" if self.framework in frameworks.OTHERS else ""
        return f"{self.exercise}/{inside}{self.path.stem}"


DECLARATIONS = {"DIAGNOSIS": (str, type(None)), "ALSO_DIAGNOSED": tuple, "PENDING": str}


def declarations(path: Path) -> dict:
    """The file's module-level DIAGNOSIS / ALSO_DIAGNOSED / PENDING literals, read without running it."""
    found = {}
    for node in ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body:
        names = [t.id for t in getattr(node, "targets", ()) if isinstance(t, ast.Name)]
        for name in (n for n in names if n in DECLARATIONS):
            value = ast.literal_eval(node.value)
            if not isinstance(value, DECLARATIONS[name]):
                raise TypeError(f"{path}: {name} must be a literal {DECLARATIONS[name]}, got {value!r}")
            found[name] = value
    return found


def discover(root: Path = CORPUS_DIR) -> list[Mutant]:
    """Every bug_*.py and alt_*.py under root/<exercise_id>/ (torch) and root/<exercise_id>/<framework>/,
    sorted by exercise, framework and file name."""
    mutants = []
    found_paths = [(p, p.parent.name, frameworks.DEFAULT) for p in Path(root).glob("*/*.py")]
    found_paths += [(p, p.parent.parent.name, p.parent.name) for p in Path(root).glob("*/*/*.py")
                    if p.parent.name in frameworks.OTHERS]
    order = frameworks.NAMES.index
    for path, exercise, framework in sorted(found_paths, key=lambda f: (f[1], order(f[2]), f[0].name)):
        kind = next((k for prefix, k in KINDS.items() if path.name.startswith(prefix)), None)
        if kind is not None:
            found = declarations(path)
            mutants.append(Mutant(exercise, kind, path, found.get("DIAGNOSIS"),
                                  tuple(found.get("ALSO_DIAGNOSED", ())), found.get("PENDING", ""), framework))
    return mutants


def evaluate(mutant: Mutant, course: Course) -> list[CheckResult]:
    """All checks of the mutant's exercise run against the mutant file (in this process)."""
    exercise = course.find(mutant.exercise).in_framework(mutant.framework)  # its tolerances in that framework
    ctx = make_context(exercise, FileImpl(mutant.path, adapter=mutant.adapter))
    with warnings.catch_warnings():  # the corpus is buggy on purpose (e.g. .T on 3-D tensors); not news
        warnings.simplefilter("ignore")
        return run_checks(ctx)


def caught_by(results: list[CheckResult]) -> list[CheckResult]:
    """The checks that failed; one not applicable in the entry's framework (a dtype it lacks, NumPy's gradient
    law) caught nothing."""
    return [r for r in results if not r.passed and r.status != Status.NOT_APPLICABLE]


def diagnoses(results: list[CheckResult]) -> set[str]:
    return {r.diagnosis for r in results if r.diagnosis}


def problems(mutant: Mutant, results: list[CheckResult]) -> list[str]:
    """What is wrong with this corpus entry's outcome; empty when it behaves as intended."""
    failed = caught_by(results)
    if mutant.kind == "alt":
        return [f"fails {r.name} ({r.status})" for r in failed]
    if not failed:
        return ["ESCAPES every check"]
    found = diagnoses(results)
    if mutant.diagnosis and mutant.diagnosis not in found:
        return [f"not diagnosed as {mutant.diagnosis} (got {', '.join(sorted(found)) or 'none'})"]
    wrong = found - {mutant.diagnosis, *mutant.also_diagnosed}
    return [f"misdiagnosed as {', '.join(sorted(wrong))}"] if wrong else []


def verdict(mutant: Mutant, results: list[CheckResult]) -> str:
    """One of: ok; pending (misbehaves as its PENDING note says); problem."""
    trouble = bool(problems(mutant, results))
    if mutant.pending:
        return "pending" if trouble else "problem"  # a closed gap: the PENDING note must go
    return "problem" if trouble else "ok"


def describe(mutant: Mutant, results: list[CheckResult]) -> str:
    trouble = problems(mutant, results)
    note = ""
    if mutant.pending:
        note = f"  [PENDING: {mutant.pending}]" if trouble else "  <-- behaves now: remove its PENDING note"
    if mutant.kind == "alt":
        skipped = sum(r.status == Status.NOT_APPLICABLE for r in results)
        passes = f"passes all {len(results) - skipped} checks" + (f" ({skipped} not applicable)" if skipped else "")
        return f"{mutant.name}: {'; '.join(trouble) or passes}{note}"
    failed = caught_by(results)
    if not failed:
        return f"{mutant.name}: ESCAPES every check{note}"
    names = [r.name if r.status == Status.FAILED else f"{r.name}[{r.status}]" for r in failed]
    line = f"{mutant.name}: caught by {', '.join(names)}"
    if all(r.status == Status.ERROR for r in failed):
        line += " (only by raising)"
    found = diagnoses(results)
    if found:
        line += f" · diagnosed: {', '.join(sorted(found))}"
    if trouble and not mutant.pending:
        line += "  <-- " + "; ".join(trouble)
    return line + note


@dataclass(frozen=True)
class Margin:
    ratio: float
    mutant: str
    case: str


def margins(evaluated: list[tuple[Mutant, list[CheckResult]]]) -> tuple[Margin | None, Margin | None]:
    """(the bug closest to passing: the smallest excess among its failing value cases' largest, the
    alternative closest to failing: the largest excess of any of its cases)."""
    closest_bug = closest_alt = None
    for mutant, results in evaluated:
        compared = [r for r in results if r.excess is not None]
        if mutant.kind == "bug":
            failing = [r for r in compared if not r.passed]
            if failing:
                worst = max(failing, key=lambda r: r.excess)
                if closest_bug is None or worst.excess < closest_bug.ratio:
                    closest_bug = Margin(worst.excess, mutant.name, worst.name)
        elif compared:
            worst = max(compared, key=lambda r: r.excess)
            if closest_alt is None or worst.excess > closest_alt.ratio:
                closest_alt = Margin(worst.excess, mutant.name, worst.name)
    return closest_bug, closest_alt


def margin_line(exercise: str, evaluated: list[tuple[Mutant, list[CheckResult]]]) -> str:
    bug, alt = margins(evaluated)
    said = [f"closest bug {bug.ratio:.3g}x the tolerance ({bug.mutant}, case {bug.case})" if bug
            else "no bug is caught by comparing values",
            f"closest correct code {alt.ratio:.2g}x ({alt.mutant}, case {alt.case})" if alt
            else "no alternative to compare"]
    return f"{exercise} margins: " + "; ".join(said)


def score_line(exercise: str, evaluated: list[tuple[Mutant, list[CheckResult]]]) -> str:
    """The exercise's mutation score: bugs some check catches, and correct alternatives that pass every one."""
    bugs = [bool(caught_by(results)) for mutant, results in evaluated if mutant.kind == "bug"]
    alts = [not caught_by(results) for mutant, results in evaluated if mutant.kind == "alt"]
    return (f"{exercise} score: {sum(bugs)}/{len(bugs)} bugs caught, "
            f"{sum(alts)}/{len(alts)} correct alternatives pass")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.mutants", description=__doc__.split("\n\n")[0])
    parser.add_argument("exercise_id", nargs="?", help="only this exercise id (its quality report)")
    parser.add_argument("--exercise", help="the same, as an option")
    parser.add_argument("--root", type=Path, default=CORPUS_DIR, help="corpus directory")
    config.add_arguments(parser, ("framework",))  # here: only this framework's entries
    args = parser.parse_args(argv)
    args.exercise = args.exercise or args.exercise_id
    try:
        course = load_course(paths.SPEC_DIR)
    except SpecError as exc:
        print(f"python -m attnlab.instructor.mutants: {exc}", file=sys.stderr)
        return 2
    mutants = [m for m in discover(args.root) if args.exercise in (None, m.exercise)
               and args.framework in (None, m.framework)]
    absent = sorted({m.framework for m in mutants if not m.adapter.available()})
    if absent:
        if args.framework:
            parser.error(f"{args.framework} is not installed here")
        print(f"not evaluated ({', '.join(absent)} not installed here): "
              f"{sum(m.framework in absent for m in mutants)} entries")
        mutants = [m for m in mutants if m.framework not in absent]
    if args.exercise and args.exercise not in {e.id for e in course.all_coded}:
        parser.error(f"no coded exercise {args.exercise!r}")
    started = time.perf_counter()
    tally = {(kind, v): 0 for kind in ("bug", "alt") for v in ("ok", "pending", "problem")}
    for exercise in dict.fromkeys(m.exercise for m in mutants):
        evaluated = []
        for kind in ("bug", "alt"):
            for mutant in (m for m in mutants if m.kind == kind and m.exercise == exercise):
                results = evaluate(mutant, course)
                evaluated.append((mutant, results))
                tally[kind, verdict(mutant, results)] += 1
                print(describe(mutant, results))
        print(margin_line(exercise, evaluated))
        print(score_line(exercise, evaluated))
    print(" · ".join(f"{sum(tally[kind, v] for v in ('ok', 'pending', 'problem'))} {kind}s: "
                     f"{tally[kind, 'ok']} {'caught as declared' if kind == 'bug' else 'pass'}, "
                     f"{tally[kind, 'pending']} pending, {tally[kind, 'problem']} with problems"
                     for kind in ("bug", "alt")) + f" · {time.perf_counter() - started:.1f}s")
    return 1 if tally["bug", "problem"] or tally["alt", "problem"] or not mutants else 0


if __name__ == "__main__":
    sys.exit(main())
