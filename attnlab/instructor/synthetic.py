"""A synthetic class: many varied submissions, for trying the class report and similarity detection at a
realistic size.

    python -m attnlab.instructor.synthetic OUT [--count 200] [--seed 0] [--copies 0]

Each submission is student_template/ with every exercise's run_* replaced by a correct solution (the
reference's or a corpus alt_), a bug of the mutation corpus (tests/mutations/<id>/bug_*.py), a crash (a
name never defined), or left as the stub; its quiz is partly answered. Some have a syntax error in a
module and some are unreadable zips. `--copies N` adds N copies of earlier submissions with their local
variables renamed and comments dropped. The same arguments make the same class.
"""

import argparse
import ast
import json
import random
import re
import sys
import zipfile
from dataclasses import asdict, dataclass
from pathlib import Path

import yaml

from attnlab.core import paths
from attnlab.core.spec import Course, ExerciseSpec
from attnlab.core.spec_load import load_course
from attnlab.instructor.mutants import CORPUS_DIR
from attnlab.instructor.splice import closure, copy_renamed, splice

KINDS = {"correct": 0.45, "bug": 0.30, "stub": 0.15, "crash": 0.10}  # how often each exercise is each
SYNTAX_ERROR_EVERY = 40  # about one submission in this many does not even import
BAD_ZIP_EVERY = 70  # about one in this many is an unusable upload
QUIZ = {"right": 0.6, "wrong": 0.15}  # per question; otherwise left unanswered


@dataclass(frozen=True)
class Planted:
    """One generated submission and what it was made of: for tests and benchmarks to check against."""

    name: str
    path: str
    kind: str  # "package", "syntax_error", "bad_zip" or "renamed_copy"
    exercises: dict[str, str]  # exercise id -> "correct:<file>", "bug:<file>", "stub" or "crash"
    copy_of: str = ""


def sources(exercise: ExerciseSpec) -> dict[str, list[Path]]:
    """The files an exercise's code can come from: correct ones (the reference's module first), bugs."""
    corpus = CORPUS_DIR / exercise.id
    return {"correct": [paths.REFERENCE_DIR / f"{exercise.module}.py", *sorted(corpus.glob("alt_*.py"))],
            "bug": sorted(corpus.glob("bug_*.py"))}


def _crash(module_text: str, function: str) -> str:
    """The stub with its `raise NotImplementedError` replaced by a return of a name never defined."""
    stub = next(n for n in ast.parse(module_text).body if getattr(n, "name", None) == function)
    lines = module_text.splitlines(keepends=True)
    last = stub.body[-1]
    lines[last.lineno - 1:last.end_lineno] = [" " * last.col_offset + "return output\n"]
    return "".join(lines)


def template_modules() -> dict[str, str]:
    """student_template/'s Python files by module name (__init__ included)."""
    return {p.stem: p.read_text(encoding="utf-8") for p in sorted(paths.TEMPLATE_DIR.glob("*.py"))}


def use_source(modules: dict[str, str], exercise: ExerciseSpec, source: Path) -> bool:
    """Put `source`'s run_* (with what it needs) in place of the exercise's stub; False when its helpers'
    names clash with code already there."""
    own_module = source.stem if source.parent == paths.REFERENCE_DIR else exercise.module
    needed = closure(source.read_text(encoding="utf-8"), exercise.function, exercise.module, own_module)
    spliced = splice(modules[exercise.module], exercise.function, needed)
    if spliced is None:
        return False
    modules[exercise.module] = re.sub(r"^[ \t]*# (BEGIN|END) SOLUTION\n", "", spliced, flags=re.MULTILINE)
    return True


def _edit(modules: dict[str, str], exercise: ExerciseSpec, kind: str, rng: random.Random) -> str:
    """Apply one choice to the module texts; returns its label (a conflicting source becomes the stub)."""
    if kind == "crash":
        modules[exercise.module] = _crash(modules[exercise.module], exercise.function)
        return "crash"
    if kind in ("correct", "bug") and sources(exercise)[kind]:
        source = rng.choice(sources(exercise)[kind])
        if use_source(modules, exercise, source):
            return f"{kind}:{source.name}"
    return "stub"


def write_modules(target: Path, modules: dict[str, str], quiz: str) -> None:
    target.mkdir(parents=True)
    for stem, text in modules.items():
        (target / f"{stem}.py").write_text(text, encoding="utf-8")
    (target / "quiz.yaml").write_text(quiz, encoding="utf-8")


def _quiz(rng: random.Random) -> str:
    text = (paths.TEMPLATE_DIR / "quiz.yaml").read_text(encoding="utf-8")
    answers = yaml.safe_load((paths.REFERENCE_DIR / "quiz.yaml").read_text(encoding="utf-8"))["answers"]

    def answer(match: re.Match) -> str:
        right, roll = answers[match.group(2)], rng.random()
        if roll < QUIZ["right"]:
            return f"{match.group(1)}{right!r}"
        if roll < QUIZ["right"] + QUIZ["wrong"]:
            wrong = right * 2 + 1 if isinstance(right, int) else ("a" if right != "a" else "b")
            return f"{match.group(1)}{wrong!r}"
        return match.group(0)

    return re.sub(r"^(\s+(\w+): )null", answer, text, flags=re.MULTILINE)


def write_package(target: Path, course: Course, rng: random.Random) -> dict[str, str]:
    """One submission directory; returns what each exercise was made of."""
    modules = template_modules()
    made = {}
    for exercise in course.coded:
        kind = rng.choices(list(KINDS), weights=list(KINDS.values()))[0]
        made[exercise.id] = _edit(modules, exercise, kind, rng)
    write_modules(target, modules, _quiz(rng))
    return made


def _bad_zip(path: Path, rng: random.Random) -> None:
    if rng.random() < 0.5:
        path.write_bytes(b"PK\x03\x04 this upload was cut off")
    else:
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("../outside.py", "print('escaped')\n")


def make_class(out: Path, *, count: int, seed: int = 0, copies: int = 0) -> list[Planted]:
    """Write `count` submissions (and `copies` renamed copies) into `out`, which must not exist."""
    course = load_course(paths.SPEC_DIR)
    rng = random.Random(seed)
    out.mkdir(parents=True)
    planted = []
    for i in range(count):
        name = f"student_{i:03d}"
        if i % BAD_ZIP_EVERY == BAD_ZIP_EVERY - 1:
            _bad_zip(out / f"{name}.zip", rng)
            planted.append(Planted(name, f"{name}.zip", "bad_zip", {}))
            continue
        made = write_package(out / name, course, rng)
        kind = "package"
        if i % SYNTAX_ERROR_EVERY == SYNTAX_ERROR_EVERY - 1:
            broken = out / name / f"{rng.choice([e.module for e in course.coded])}.py"
            broken.write_text(broken.read_text(encoding="utf-8") + "\n\ndef unfinished(:\n    pass\n", encoding="utf-8")
            kind = "syntax_error"
        planted.append(Planted(name, name, kind, made))
    originals = [p for p in planted if p.kind == "package"]
    for j in range(copies):
        original = rng.choice(originals)
        name = f"student_{count + j:03d}"
        copy_renamed(out / original.path, out / name, seed=seed * 100_003 + j)
        planted.append(Planted(name, name, "renamed_copy", original.exercises, copy_of=original.name))
    return planted


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.synthetic", description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="directory to create (must not exist)")
    parser.add_argument("--count", type=int, default=200, help="submissions (default 200)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--copies", type=int, default=0, help="renamed copies of earlier submissions to add")
    parser.add_argument("--manifest", type=Path, help="write what each submission was made of (JSON) here")
    opts = parser.parse_args(argv)
    if opts.out.exists():
        parser.error(f"{opts.out} exists; give a new directory")
    planted = make_class(opts.out, count=opts.count, seed=opts.seed, copies=opts.copies)
    if opts.manifest:
        opts.manifest.write_text(json.dumps([asdict(p) for p in planted], indent=1) + "\n", encoding="utf-8")
    print(f"wrote {len(planted)} submissions to {opts.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
