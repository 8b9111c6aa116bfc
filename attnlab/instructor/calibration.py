"""A class for calibrating and testing similarity detection, made of code that was not written for it.

    python -m attnlab.instructor.calibration OUT [--copydetect]

Students (torch): one per correct solution and per bug of every exercise in the repository (the
reference's and tests/mutations/<id>/alt_*.py and bug_*.py, each spliced into the template as
attnlab.instructor.synthetic does), the acceptance packages (tests/acceptance/, complete solutions in
the notes' styles) and the bundled examples. Planted: copies (attnlab.instructor.copies) of every kind,
of the four acceptance packages and four corpus solutions with the most code.

Which pairs count: per exercise, every two students who both changed its run_* from the template's.
A copy with its original is planted. A pair is related, and left out of the count, when at least half of
one side's own statements (its module's statements that the template's lacks, as ast.unparse writes
them: names kept, layout and comments gone) are in the other's too: a bug made from the reference, two
packages from the same notes (a copy is related to what its original is related to). Every other pair
is independent. Prints found/planted and false/independent for attnlab (at its default threshold and
over a sweep) and, with --copydetect, for copydetect (`pip install
copydetect`; its defaults k=25, window 1, display threshold 0.33, the template as boilerplate).
"""

import argparse
import ast
import shutil
import sys
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

import numpy as np

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor.copies import KINDS, copy_package
from attnlab.instructor.fingerprints import _flatten, _header
from attnlab.instructor.synthetic import sources, template_modules, use_source, write_modules

ACCEPTANCE_DIR = paths.ROOT / "tests" / "acceptance"
COPIED_PACKAGES = ("seed002_modules_data", "seed000_nanogpt", "seed004_einops", "loops_float64")
COPIED_SOURCES = 4  # corpus solutions copied: those adding the most statements, one per exercise
EXAMPLES = ("alice_partial", "bob_buggy", "carol_library_calls")
RELATED_SHARE = 0.5


@dataclass
class Class:
    """The students (name -> package directory), which exercise each did, and the planted copies."""

    root: Path
    did: dict[str, set[str]] = field(default_factory=dict)  # student -> exercise ids whose run_* changed
    copies: dict[str, str] = field(default_factory=dict)  # copy -> original

    def origin(self, name: str) -> str:
        return self.copies.get(name, name)


def _changed(package: Path, exercises) -> set[str]:
    """Exercise ids whose run_* differs from the template's (compared as ASTs: layout does not count)."""
    def functions(path: Path) -> dict[str, str]:
        if not path.is_file():
            return {}
        return {n.name: ast.dump(n) for n in ast.parse(path.read_text(encoding="utf-8")).body
                if isinstance(n, ast.FunctionDef)}

    did = set()
    for e in exercises:
        mine, given = functions(package / f"{e.module}.py"), functions(paths.TEMPLATE_DIR / f"{e.module}.py")
        if e.function in mine and mine[e.function] != given.get(e.function):
            did.add(e.id)
    return did


def build(root: Path) -> Class:
    """Write the class into `root` (which must not exist)."""
    exercises = [e for a in ("attention", "modern") for e in load_course(paths.SPEC_DIR, a).coded]
    made = Class(root)
    quiz = (paths.TEMPLATE_DIR / "quiz.yaml").read_text(encoding="utf-8")
    largest: dict[str, tuple[int, str]] = {}  # exercise -> (statements, student) of its largest correct one
    for exercise in exercises:
        for kind, files in sources(exercise).items():
            for source in files:
                name = f"{exercise.id}-{source.stem if source.parent != paths.REFERENCE_DIR else 'reference'}"
                modules = template_modules()
                if use_source(modules, exercise, source):
                    write_modules(root / name, modules, quiz)
                    size = (len(_own_statements(root / name, exercise.module)), name)
                    if kind == "correct" and size > largest.get(exercise.id, (0, "")):
                        largest[exercise.id] = size
    for package in sorted(ACCEPTANCE_DIR.iterdir()):
        if package.is_dir():
            shutil.copytree(package, root / package.name)
    for name in EXAMPLES:
        shutil.copytree(paths.EXAMPLES_DIR / name, root / name)
    originals = [*COPIED_PACKAGES, *(name for _, name in sorted(largest.values(), reverse=True)[:COPIED_SOURCES])]
    for i, original in enumerate(originals):
        for kind in KINDS:
            copy = f"copy_{kind}-{original}"
            copy_package(root / original, root / copy, kind, seed=1000 + 10 * i + KINDS.index(kind))
            made.copies[copy] = original
    made.did = {p.name: _changed(p, exercises) for p in sorted(root.iterdir()) if p.name not in made.copies}
    made.did.update({copy: made.did[original] for copy, original in made.copies.items()})  # disguised, not new
    return made


def _own_statements(package: Path, module: str) -> set[str]:
    """The statements of a student's module that the template's does not have, as ast.unparse writes them
    (layout, comments and docstrings gone; names kept)."""
    def statements(path: Path) -> set[str]:
        if not path.is_file():
            return set()
        flat: list = []
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            _flatten(node, -1, flat)
        return {_header(node) for node, _ in flat}

    return statements(package / f"{module}.py") - statements(paths.TEMPLATE_DIR / f"{module}.py")


def pairs(made: Class, exercise) -> dict[tuple[str, str], str]:
    """Every pair of students who both did `exercise`: "planted", "related" or "independent"."""
    doers = sorted(n for n, did in made.did.items() if exercise.id in did)
    own = {n: _own_statements(made.root / made.origin(n), exercise.module) for n in doers}

    def related(a: str, b: str) -> bool:
        small = min(len(own[a]), len(own[b]))
        return made.origin(a) == made.origin(b) or (small > 0 and len(own[a] & own[b]) >= RELATED_SHARE * small)

    found = {}
    for a, b in combinations(doers, 2):
        planted = made.copies.get(a) == b or made.copies.get(b) == a
        found[(a, b)] = "planted" if planted else "related" if related(a, b) else "independent"
    return found


def tally(made: Class, flagged: dict[str, set[tuple[str, str]]]) -> dict[str, int]:
    """Copies found (flagged with their original in every exercise both did), copy-exercises found,
    independent pairs flagged, out of how many."""
    exercises = [e for a in ("attention", "modern") for e in load_course(paths.SPEC_DIR, a).coded]
    counts = dict.fromkeys(("copy_exercises", "copy_exercises_found", "independent", "false"), 0)
    missed = set()
    for exercise in exercises:
        for pair, kind in pairs(made, exercise).items():
            hit = pair in flagged.get(exercise.id, set())
            if kind == "planted":
                counts["copy_exercises"] += 1
                counts["copy_exercises_found"] += hit
                missed |= set() if hit else {c for c in pair if c in made.copies}
            elif kind == "independent":
                counts["independent"] += 1
                counts["false"] += hit
    counts["copies"], counts["copies_found"] = len(made.copies), len(set(made.copies) - missed)
    return counts


def attnlab_scores(made: Class, threshold: float = 0.0) -> dict[str, dict[tuple[str, str], float]]:
    """Exercise -> (a, b) -> attnlab's score, for every pair scoring `threshold` or more."""
    from attnlab.instructor import similarity
    from attnlab.instructor.sources import read_sources

    scores: dict[str, dict[tuple[str, str], float]] = {}
    submissions, skipped = read_sources(made.root, load_course(paths.SPEC_DIR))
    assert not skipped, skipped
    for assignment in ("attention", "modern"):
        found = similarity.check(submissions, load_course(paths.SPEC_DIR, assignment), threshold=threshold)
        for pair in found.pairs:
            scores.setdefault(pair.exercise, {})[(pair.a, pair.b)] = pair.score
    return scores


def copydetect_scores(made: Class) -> dict[str, dict[tuple[str, str], float]]:
    """Exercise -> (a, b) -> copydetect's score (the larger of its two similarities) of the two students'
    modules for the exercise, with its defaults and the template's module as boilerplate."""
    from copydetect import CodeFingerprint, compare_files, defaults

    k, window = defaults.NOISE_THRESHOLD, defaults.GUARANTEE_THRESHOLD - defaults.NOISE_THRESHOLD + 1
    scores: dict[str, dict[tuple[str, str], float]] = {}
    for assignment in ("attention", "modern"):
        for exercise in load_course(paths.SPEC_DIR, assignment).coded:
            template = CodeFingerprint(str(paths.TEMPLATE_DIR / f"{exercise.module}.py"), k, window)
            prints = {}
            for (a, b) in pairs(made, exercise):
                for name in (a, b):
                    if name not in prints:
                        prints[name] = CodeFingerprint(str(made.root / name / f"{exercise.module}.py"), k, window,
                                                       boilerplate=np.array(sorted(template.hashes)))
                _, (sim_a, sim_b), _ = compare_files(prints[a], prints[b])
                scores.setdefault(exercise.id, {})[(a, b)] = max(sim_a, sim_b)
    return scores


def flagged_at(scores: dict[str, dict[tuple[str, str], float]], threshold: float, strictly: bool = False) -> dict:
    return {e: {p for p, s in by_pair.items() if (s > threshold if strictly else s >= threshold)}
            for e, by_pair in scores.items()}


def _line(tool: str, threshold: float, counts: dict[str, int]) -> str:
    return (f"{tool:<11} {threshold:>5.2f}  copies {counts['copies_found']:>2}/{counts['copies']}  "
            f"copy-exercises {counts['copy_exercises_found']:>3}/{counts['copy_exercises']}  "
            f"false {counts['false']:>3}/{counts['independent']} "
            f"({100 * counts['false'] / max(counts['independent'], 1):.1f}%)")


def main(argv: list[str] | None = None) -> int:
    from attnlab.instructor.similarity_index import THRESHOLD

    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.calibration",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="directory to create (must not exist)")
    parser.add_argument("--copydetect", action="store_true", help="also score the class with copydetect")
    opts = parser.parse_args(argv)
    if opts.out.exists():
        parser.error(f"{opts.out} exists; give a new directory")
    made = build(opts.out)
    print(f"{len(made.did)} students, {len(made.copies)} planted copies in {opts.out}")
    scores = attnlab_scores(made)
    print(_line("attnlab", THRESHOLD, tally(made, flagged_at(scores, THRESHOLD))) + "  (default)")
    for threshold in (0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        print(_line("attnlab", threshold, tally(made, flagged_at(scores, threshold))))
    if opts.copydetect:
        scores = copydetect_scores(made)
        print(_line("copydetect", 0.33, tally(made, flagged_at(scores, 0.33, strictly=True))) + "  (its default)")
        for threshold in (0.5, 0.6, 0.7, 0.8, 0.9):
            print(_line("copydetect", threshold, tally(made, flagged_at(scores, threshold, strictly=True))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
