"""Pairs of submissions whose code for an exercise is suspiciously alike.

    python -m attnlab.instructor.similarity DIR [--top N] [--json FILE] [--lang en|zh]

DIR holds submissions as grade.py takes them (package directories or .zip files). Per exercise, each
submission's run_* body is fingerprinted (attnlab.instructor.fingerprints: names and literals
abstracted, winnowing as in MOSS). Fingerprints of the template's own body never count, nor do those
that more than a share of the class has (what everyone writes, e.g. the notes' idioms). Two bodies are
alike when they share at least MIN_SHARED fingerprints making up at least THRESHOLD of the smaller one;
bodies identical after normalisation (renamed copies) form one group first, so a class of hundreds is
compared in seconds. Output is sorted and contains no timing: the same DIR gives the same result.
Alike is evidence to read, not proof: the shared fragments are shown side by side.
"""

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path

from attnlab.core import config, frameworks, paths
from attnlab.core.i18n import Message, default_lang, t
from attnlab.core.spec import Course
from attnlab.core.spec_load import load_course
from attnlab.instructor.fingerprints import WINDOW, Body, K, body_of, kgram_hashes, normalise, top_level_functions
from attnlab.instructor.sources import read_sources

THRESHOLD = 0.6  # share of the smaller body's fingerprints that the other one has
MIN_SHARED = 8  # fewer shared fingerprints (about 30 tokens, two or three lines) is too little to judge
COMMON_SHARE, COMMON_MIN = 0.1, 10  # a fingerprint in more than max(10, 10 % of the class) is common


@dataclass(frozen=True)
class Fragment:
    """A shared stretch: lines (in each file) and text of both sides."""

    a_lines: tuple[int, int]
    b_lines: tuple[int, int]
    a_text: str
    b_text: str


@dataclass(frozen=True)
class Pair:
    exercise: str
    a: str
    b: str
    shared: int  # fingerprints both have (common and template ones left out)
    a_share: float  # of a's fingerprints
    b_share: float
    a_path: str
    b_path: str

    @property
    def similarity(self) -> float:
        return max(self.a_share, self.b_share)


@dataclass
class Found:
    pairs: list[Pair] = field(default_factory=list)
    skipped: dict[str, Message] = field(default_factory=dict)  # submission -> why it could not be read
    submissions: int = 0
    exercises: int = 0
    bodies: dict[str, dict[str, Body]] = field(default_factory=dict, repr=False)  # exercise -> name -> body
    excluded: dict[str, set[int]] = field(default_factory=dict, repr=False)  # exercise -> template hashes

    def fragments(self, pair: Pair) -> tuple[Fragment, ...]:
        """The pair's shared stretches (computed when asked: a class can have thousands of pairs)."""
        codes = self.bodies[pair.exercise]
        return fragments(codes[pair.a], codes[pair.b], self.excluded[pair.exercise])

    def matches(self) -> list[tuple[Pair, tuple[str, ...]]]:
        """The pairs to read, most alike first: a group of submissions whose bodies are identical after
        normalisation is one entry (its first pair, and every member), not one per pair."""
        shown, found = set(), []
        for pair in self.pairs:
            codes = self.bodies[pair.exercise]
            tokens = codes[pair.a].tokens
            if tokens != codes[pair.b].tokens:
                found.append((pair, (pair.a, pair.b)))
            elif (pair.exercise, tokens) not in shown:
                shown.add((pair.exercise, tokens))
                found.append((pair, tuple(sorted(n for n, b in codes.items() if b.tokens == tokens))))
        return found


def body_in(files: dict[str, str], module: str, function: str, parsed: dict) -> Body | None:
    """The submission's `function`: in `<module>.py` first, else in any file that defines it. `parsed`
    caches each file's functions (a module holds several exercises)."""
    for path in sorted(files, key=lambda p: (p != f"{module}.py", p)):
        if f"def {function}" not in files[path]:
            continue
        if path not in parsed:
            try:
                parsed[path] = top_level_functions(files[path])
            except (SyntaxError, ValueError):  # ValueError: a NUL byte
                parsed[path] = {}
        if function in parsed[path]:
            return body_of(path, *parsed[path][function])
    return None


def template_hashes(template_dir: Path, module: str, function: str) -> set[int]:
    """Every k-gram hash of the template's own body: code all students were given."""
    path = template_dir / f"{module}.py"
    found = top_level_functions(path.read_text(encoding="utf-8")).get(function) if path.is_file() else None
    if found is None:
        return set()
    tokens, _ = normalise(found[1], found[2], found[3])
    return set(kgram_hashes(tokens).tolist())


def _groups(codes: dict[str, Body]) -> dict[tuple[str, ...], list[str]]:
    groups: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for name in sorted(codes):
        groups[codes[name].tokens].append(name)
    return groups


def compare_exercise(exercise: str, codes: dict[str, Body], excluded: set[int], class_size: int) -> list[Pair]:
    """Alike pairs among the submissions' bodies for one exercise."""
    seen = Counter(h for body in codes.values() for h in body.fingerprints)
    limit = max(COMMON_MIN, COMMON_SHARE * class_size)
    dropped = excluded | {h for h, n in seen.items() if n > limit}
    groups = list(_groups(codes).values())
    kept = [set(codes[g[0]].fingerprints) - dropped for g in groups]
    index: dict[int, list[int]] = defaultdict(list)
    for gi, hashes in enumerate(kept):
        for h in hashes:
            index[h].append(gi)
    shared: Counter = Counter()
    for members in index.values():
        shared.update(combinations(members, 2))
    alike = [(gi, gi, len(kept[gi])) for gi, g in enumerate(groups) if len(g) > 1]
    alike += [(gi, gj, n) for (gi, gj), n in shared.items()]
    group_of = {name: gi for gi, g in enumerate(groups) for name in g}
    pairs = []
    for gi, gj, n in alike:
        small = min(len(kept[gi]), len(kept[gj]))
        if n >= MIN_SHARED and small and n / small >= THRESHOLD:
            for a, b in _member_pairs(groups[gi], groups[gj]):
                pairs.append(Pair(exercise, a, b, n, n / len(kept[group_of[a]]), n / len(kept[group_of[b]]),
                                  codes[a].path, codes[b].path))
    return pairs


def _member_pairs(first: list[str], second: list[str]) -> list[tuple[str, str]]:
    if first is second:
        return list(combinations(first, 2))
    return [tuple(sorted((a, b))) for a in first for b in second]


def fragments(a: Body, b: Body, excluded: set[int]) -> tuple[Fragment, ...]:
    """The shared stretches of two bodies, in a's order, each as lines of both files."""
    matches = sorted((pa, b.fingerprints[h]) for h, pa in a.fingerprints.items()
                     if h in b.fingerprints and h not in excluded)
    runs: list[list[tuple[int, int]]] = []
    for pa, pb in matches:
        last = runs[-1][-1] if runs else None
        if last and 0 < pa - last[0] <= K + WINDOW and 0 < pb - last[1] <= K + WINDOW:
            runs[-1].append((pa, pb))
        else:
            runs.append([(pa, pb)])
    return tuple(_fragment(a, b, run) for run in runs)


def _fragment(a: Body, b: Body, run: list[tuple[int, int]]) -> Fragment:
    def span(body: Body, start: int, end: int) -> tuple[tuple[int, int], str]:
        first, last = body.lines[start], body.lines[min(end + K, len(body.lines)) - 1]
        text = "".join(body.source.splitlines(keepends=True)[first - 1:last])
        return (body.first_line + first - 1, body.first_line + last - 1), text

    a_lines, a_text = span(a, run[0][0], run[-1][0])
    b_lines, b_text = span(b, run[0][1], run[-1][1])
    return Fragment(a_lines, b_lines, a_text, b_text)


def check(submissions: dict[str, dict[str, str]], course: Course, *, template_dir: Path = paths.TEMPLATE_DIR,
          skipped: dict[str, Message] | None = None) -> Found:
    """Alike pairs over every coded exercise; `submissions` maps a name to its files (path -> text)."""
    found = Found(skipped=dict(skipped or {}), submissions=len(submissions), exercises=len(course.coded))
    parsed: dict[str, dict] = defaultdict(dict)  # submission -> its parsed files
    for exercise in course.coded:
        codes = {name: body for name, files in sorted(submissions.items())
                 if (body := body_in(files, exercise.module, exercise.function, parsed[name])) is not None}
        excluded = template_hashes(template_dir, exercise.module, exercise.function)
        found.bodies[exercise.id], found.excluded[exercise.id] = codes, excluded
        found.pairs += compare_exercise(exercise.id, codes, excluded, len(submissions))
    order = [e.id for e in course.coded]
    found.pairs.sort(key=lambda p: (-p.similarity, -p.shared, order.index(p.exercise), p.a, p.b))
    return found


def check_dir(directory: Path, course: Course, *, template_dir: Path | None = None) -> Found:
    submissions, skipped = read_sources(directory, course)
    stubs = template_dir or paths.template_dir(frameworks.adapter(course.framework))  # left out: the template's
    return check(submissions, course, template_dir=stubs, skipped=skipped)


def _side_by_side(fragment: Fragment, width: int = 58) -> list[str]:
    left, right = fragment.a_text.rstrip("\n").split("\n"), fragment.b_text.rstrip("\n").split("\n")
    rows = max(len(left), len(right))
    cut = [(line.expandtabs()[:width]).ljust(width) for line in left + [""] * (rows - len(left))]
    return [f"    {a} | {b.expandtabs()[:width]}" for a, b in zip(cut, right + [""] * (rows - len(right)))]


def print_found(found: Found, top: int, lang: str) -> None:
    for name, problem in sorted(found.skipped.items()):
        print(t("similarity.skipped", lang, name=name, problem=problem.text(lang)))
    matches = found.matches()
    for pair, members in matches[:top]:
        print(t("similarity.pair", lang, exercise=pair.exercise, a=pair.a, b=pair.b, shared=pair.shared,
                a_share=100 * pair.a_share, b_share=100 * pair.b_share) if len(members) == 2 else
              t("similarity.group", lang, exercise=pair.exercise, count=len(members), names=", ".join(members)))
        for fragment in found.fragments(pair):
            print(t("similarity.lines", lang, a_path=pair.a_path, a_from=fragment.a_lines[0], a_to=fragment.a_lines[1],
                    b_path=pair.b_path, b_from=fragment.b_lines[0], b_to=fragment.b_lines[1]))
            print("\n".join(_side_by_side(fragment)))
    if len(matches) > top:
        print(t("similarity.more", lang, count=len(matches) - top))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.similarity", description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help="a directory of submissions (package directories or .zip files)")
    parser.add_argument("--top", type=int, default=20, help="pairs printed, most alike first (default 20)")
    parser.add_argument("--json", type=Path, default=None, help="write every pair, with its fragments, here")
    config.add_arguments(parser, ("lang", "assignment"))
    opts = parser.parse_args(argv)
    lang = opts.lang or default_lang()
    if not opts.directory.is_dir():
        print(t("similarity.not_a_directory", lang, path=str(opts.directory)), file=sys.stderr)
        return 2
    started = time.perf_counter()
    found = check_dir(opts.directory, load_course(paths.SPEC_DIR, opts.assignment))
    print_found(found, opts.top, lang)
    print(t("similarity.summary", lang, submissions=found.submissions, exercises=found.exercises,
            pairs=len(found.pairs), matches=len(found.matches()), seconds=time.perf_counter() - started))
    if opts.json:
        every = [{**asdict(p), "fragments": [asdict(f) for f in found.fragments(p)]} for p in found.pairs]
        opts.json.write_text(json.dumps(every, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
