"""Submissions whose code for an exercise is suspiciously alike, and code that matches a known source.

    python -m attnlab.instructor.similarity DIR [--known DIR] [--top N] [--json FILE] [--lang en|zh]

DIR holds submissions as grade.py takes them (package directories, .zip files, an LMS export). Per
exercise, each submission's code that the exercise's run_* reaches (helpers and classes included,
attnlab.instructor.units) is fingerprinted statement by statement (attnlab.instructor.fingerprints) and
every pair is scored (attnlab.instructor.similarity_index); what the template has, or most of the class,
counts for nothing. --known names files to compare every submission against (public repositories, last
year's solutions): matches with them are reported apart from pairs of students, and a pair of students
who both match the same known source is listed under it. Flagged pairs form clusters (three students
sharing one solution are one cluster). Output is sorted and contains no timing in --json: the same
directories give the same result. Alike is evidence to read, not proof.
"""

import argparse
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from attnlab.core import config, frameworks, paths
from attnlab.core.i18n import Message, default_lang, t
from attnlab.core.spec import Course
from attnlab.core.spec_load import load_course
from attnlab.instructor.fingerprints import Statement
from attnlab.instructor.similarity_index import BINS, MIN_SIZE, THRESHOLD, score_exercise
from attnlab.instructor.sources import is_class_file, read_known, read_sources
from attnlab.instructor.units import Package, Unit, all_units, known_units, read_package


class Pair(NamedTuple):
    """Two submissions (or, when `known`, a submission and a known source's file) alike in one exercise.
    A named tuple: a class of thousands flags a million pairs, made three times faster than a dataclass."""

    exercise: str
    a: str
    b: str
    score: float
    shared: int  # tokens of the statements whose fingerprints both have
    known: bool = False


@dataclass(frozen=True)
class Cluster:
    """Submissions linked by flagged pairs in one exercise; `source` is the known file they match, if any."""

    exercise: str
    members: tuple[str, ...]
    pairs: tuple[Pair, ...]
    source: str = ""

    @property
    def score(self) -> float:
        return max(p.score for p in self.pairs)


@dataclass
class Found:
    pairs: list[Pair] = field(default_factory=list)  # student pairs, most alike first
    known: list[Pair] = field(default_factory=list)  # submission-to-known-source matches
    explained: list[Pair] = field(default_factory=list)  # student pairs who share a known source
    skipped: dict[str, Message] = field(default_factory=dict)
    submissions: int = 0
    exercises: int = 0
    threshold: float = THRESHOLD
    histogram: np.ndarray = field(default_factory=lambda: np.zeros(BINS, dtype=np.int64))
    units: dict[str, dict[str, Unit]] = field(default_factory=dict, repr=False)  # exercise -> name -> unit
    known_units: dict[str, Unit] = field(default_factory=dict, repr=False)
    excluded: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)
    files: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)  # submission -> path -> text
    known_files: dict[str, str] = field(default_factory=dict, repr=False)

    def text(self, name: str, path: str, known: bool = False) -> str:
        return self.known_files[path] if known else self.files[name][path]

    def unit(self, exercise: str, name: str, known: bool = False) -> Unit:
        return self.known_units[name] if known else self.units[exercise][name]

    def clusters(self) -> list[Cluster]:
        """Connected groups of flagged student pairs, and per known source the students matching it."""
        found = []
        by_exercise: dict[str, list[Pair]] = {}
        for pair in self.pairs:
            by_exercise.setdefault(pair.exercise, []).append(pair)
        for exercise, pairs in by_exercise.items():
            found += [Cluster(exercise, members, tuple(p for p in pairs if p.a in members))
                      for members in _components(pairs)]
        sources: dict[tuple[str, str], list[Pair]] = {}
        for pair in self.known:
            sources.setdefault((pair.exercise, pair.b), []).append(pair)
        for (exercise, source), pairs in sources.items():
            found.append(Cluster(exercise, tuple(sorted(p.a for p in pairs)), tuple(pairs), source))
        return sorted(found, key=lambda c: (-c.score, c.exercise, c.source, c.members))


def _components(pairs: list[Pair]) -> list[tuple[str, ...]]:
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for pair in pairs:
        parent[root(pair.a)] = root(pair.b)
    members: dict[str, list[str]] = {}
    for name in sorted(parent):
        members.setdefault(root(name), []).append(name)
    return [tuple(m) for m in members.values()]


def _template(template_dir: Path, cache: dict) -> tuple[Package, frozenset[int]]:
    files = {p.name: p.read_text(encoding="utf-8") for p in sorted(template_dir.glob("*.py"))}
    package = read_package(files, cache)
    segments = [s for named in package.modules.values() for s in named.values()]
    segments += [s for loose in package.loose.values() for s in loose]
    return package, frozenset(h for s in segments for st in s.statements for h in (st.h0, st.h1))


def check(submissions: dict[str, dict[str, str]], course: Course, *, template_dir: Path = paths.TEMPLATE_DIR,
          skipped: dict[str, Message] | None = None, known: dict[str, str] | None = None,
          threshold: float = THRESHOLD) -> Found:
    """Flagged pairs over every coded exercise; `submissions` maps a name to its files (path -> text),
    `known` a known source's file name to its text."""
    cache: dict = {}
    template, given = _template(template_dir, cache)
    functions = {e.id: (e.module, e.function) for e in course.coded}
    per_submission = all_units(submissions, functions, template, cache)
    found = Found(skipped=dict(skipped or {}), submissions=len(submissions), exercises=len(course.coded),
                  threshold=threshold, known_units=known_units(known or {}, cache), files=submissions,
                  known_files=dict(known or {}))
    for exercise in course.coded:
        units = {name: got[exercise.id] for name, got in per_submission.items() if exercise.id in got}
        scored = score_exercise(units, given, found.known_units, len(submissions), threshold)
        found.units[exercise.id], found.excluded[exercise.id] = units, scored.excluded
        found.histogram += scored.histogram
        found.known += [Pair(exercise.id, a, b, s, n, known=True) for a, b, s, n in scored.known]
        sources: dict[str, set[str]] = {}
        for pair in scored.known:
            sources.setdefault(pair[0], set()).add(pair[1])
        if not sources:  # no known source: a class of thousands flags a million pairs, each checked here
            found.pairs += [Pair(exercise.id, a, b, s, n) for a, b, s, n in scored.pairs]
        for a, b, s, n in scored.pairs if sources else ():
            both = sources.get(a, set()) & sources.get(b, set())
            (found.explained if both else found.pairs).append(Pair(exercise.id, a, b, s, n))
    order = {e.id: i for i, e in enumerate(course.coded)}
    for pairs in (found.pairs, found.known, found.explained):
        pairs.sort(key=lambda p: (-p.score, -p.shared, order[p.exercise], p.a, p.b))
    return found


def check_dir(directory: Path, course: Course, *, template_dir: Path | None = None, known_dir: Path | None = None,
              threshold: float = THRESHOLD) -> Found:
    submissions, skipped = read_sources(directory, course)
    stubs = template_dir or paths.template_dir(frameworks.adapter(course.framework))  # left out: the template's
    known = read_known(known_dir) if known_dir is not None else None
    return check(submissions, course, template_dir=stubs, skipped=skipped, known=known, threshold=threshold)


@dataclass(frozen=True)
class Region:
    """Matched statements of one side, merged where they touch; `partner`: the other side's region that
    holds the match of its first statement."""

    path: str
    first: int
    last: int
    partner: int


def matched(found: Found, pair: Pair) -> tuple[list[Region], list[Region]]:
    """Both sides' matched regions: statements whose fingerprints both sides have (and that weigh
    something), each region linked to where its first statement's match is on the other side."""
    a, b = found.unit(pair.exercise, pair.a), found.unit(pair.exercise, pair.b, pair.known)
    excluded = found.excluded[pair.exercise]
    shared = (set(a.features()) & set(b.features())) - excluded
    a_spans, b_spans = _spans(a, shared), _spans(b, shared)
    return _linked(a_spans, b_spans), _linked(b_spans, a_spans)


def _spans(unit: Unit, shared: set[int]) -> list[tuple[str, int, int, list[Statement]]]:
    """Runs of matched statements with no unmatched one between them (blank lines and comments do not
    break a run)."""
    spans: list[tuple[str, int, int, list[Statement]]] = []
    previous_matched = False
    for s in unit.statements:
        matched_here = s.h0 in shared or s.h1 in shared
        if matched_here and previous_matched and spans[-1][0] == s.path:
            spans[-1] = (s.path, spans[-1][1], max(spans[-1][2], s.last), spans[-1][3] + [s])
        elif matched_here:
            spans.append((s.path, s.first, s.last, [s]))
        previous_matched = matched_here
    return spans


def _linked(spans: list, others: list) -> list[Region]:
    where: dict[int, int] = {}
    for index, (_, _, _, statements) in enumerate(others):
        for s in statements:
            where.setdefault(s.h0, index)
            where[s.h1] = where.get(s.h1, index)
    regions = []
    for path, first, last, statements in spans:
        head = statements[0]
        regions.append(Region(path, first, last, where.get(head.h1, where.get(head.h0, 0))))
    return regions


def regions(found: Found, pair: Pair) -> tuple[list[tuple[str, int, int]], list[tuple[str, int, int]]]:
    """The matched line ranges (file, first, last) of each side of a pair."""
    a, b = matched(found, pair)
    return [(r.path, r.first, r.last) for r in a], [(r.path, r.first, r.last) for r in b]


def as_json(found: Found) -> dict:
    """Every flagged pair with both names, the exercise, the score and the matched line ranges."""
    def entry(pair: Pair) -> dict:
        a_lines, b_lines = regions(found, pair)
        return {**pair._asdict(), "a_lines": a_lines, "b_lines": b_lines}

    return {"threshold": found.threshold, "submissions": found.submissions, "min_size": MIN_SIZE,
            "histogram": found.histogram.tolist(), "pairs": [entry(p) for p in found.pairs],
            "known": [entry(p) for p in found.known], "explained_by_known": [entry(p) for p in found.explained],
            "clusters": [{"exercise": c.exercise, "members": c.members, "source": c.source, "score": c.score}
                         for c in found.clusters()],
            "skipped": {name: problem.text("en") for name, problem in sorted(found.skipped.items())}}


def print_found(found: Found, top: int, lang: str) -> None:
    for name, problem in sorted(found.skipped.items()):
        print(t("similarity.skipped", lang, name=name, problem=problem.text(lang)))
    clusters = found.clusters()
    for cluster in clusters[:top]:
        key = "similarity.known_cluster" if cluster.source else "similarity.cluster"
        print(t(key, lang, exercise=cluster.exercise, score=100 * cluster.score, count=len(cluster.members),
                names=", ".join(cluster.members), source=cluster.source))
        for pair in cluster.pairs[:top]:
            a_lines, b_lines = regions(found, pair)
            print(t("similarity.pair", lang, a=pair.a, b=pair.b, score=100 * pair.score))
            for side, spans in ((pair.a, a_lines), (pair.b, b_lines)):
                print(f"    {side}: " + ", ".join(f"{p} {first}-{last}" for p, first, last in spans))
    if len(clusters) > top:
        print(t("similarity.more", lang, count=len(clusters) - top))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.similarity", description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path,
                        help="the submissions as grade.py took them: a directory (package directories, .zip files, "
                             "an LMS download) or an LMS download's zip or tar archive")
    parser.add_argument("--known", type=Path, default=None,
                        help="a directory of known sources (.py files, packages or .zip files, searched recursively)")
    parser.add_argument("--top", type=int, default=20, help="clusters printed, most alike first (default 20)")
    parser.add_argument("--json", type=Path, default=None, help="write every flagged pair, with its lines, here")
    parser.add_argument("--threshold", type=float, default=THRESHOLD, help=f"score to flag (default {THRESHOLD})")
    config.add_arguments(parser, ("lang", "assignment"))
    opts = parser.parse_args(argv)
    lang = opts.lang or default_lang()
    for given in (opts.directory, opts.known):
        if given is not None and not given.is_dir() and not (given is opts.directory and is_class_file(given)):
            print(t("similarity.not_a_directory", lang, path=str(given)), file=sys.stderr)
            return 2
    started = time.perf_counter()
    found = check_dir(opts.directory, load_course(paths.SPEC_DIR, opts.assignment), known_dir=opts.known,
                      threshold=opts.threshold)
    print_found(found, opts.top, lang)
    print(t("similarity.summary", lang, submissions=found.submissions, exercises=found.exercises,
            pairs=len(found.pairs), known=len(found.known), clusters=len(found.clusters()),
            seconds=time.perf_counter() - started))
    if opts.json:
        opts.json.write_text(json.dumps(as_json(found), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
