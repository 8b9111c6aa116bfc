"""Scaffold a new exercise: every file it owns, found by its id, and its line in spec/course.yaml.

    python -m attnlab.instructor.new ID --assignment ASSIGNMENT [--points N]

writes spec/ID.yaml (a loadable spec with one visible and one hidden case to replace), spec/ID.py (its own
laws, picture and example call), reference/ID.py (run_ID with a marked solution block),
reference/misconceptions/ID.py and tests/mutations/ID/ (its bugs and correct alternatives), and appends ID
to the assignment's exercises in spec/course.yaml. Nothing existing is overwritten. Then follow
docs/authoring.md: write the solution, the spec's text, cases and laws, the misconceptions, the bugs;
adjust the assignment's points; run `python -m attnlab.instructor.generate all` and
`python -m attnlab.instructor.mutants ID`.
"""

import argparse
import re
import sys
from pathlib import Path

from attnlab.core import paths
from attnlab.core.spec_load import non_negative

SPEC = '''# yaml-language-server: $schema=schema/exercise.json
kind: function
id: {id}
function: run_{id}
module: {id}
points: {points}
title:
  en: "TODO: a short title"
  zh: "TODO：简短的标题"
description:
  en: >-
    TODO: what run_{id} computes, its arguments and its output, and which part of the notes it follows.
  zh: >-
    TODO：run_{id} 计算什么、参数与输出是什么、对应课程笔记的哪一部分。
hints:
  en:
    - "TODO: a hint about the step students get wrong most often."
  zh:
    - "TODO：关于学生最常出错的那一步的提示。"
forbidden: []  # library calls that would do the whole exercise (e.g. torch.nn.functional.scaled_dot_product_attention)
tolerance:
  float32: {{atol: 1.0e-5, rtol: 1.0e-4}}
  float64: {{atol: 1.0e-12, rtol: 1.0e-10}}
  why: "TODO: why these tolerances fit (the largest rounding error of a correct float32 implementation)."
cases:
  - name: small
    visible: true
    args:
      x: {{tensor: [2, 3], seed: 1}}
  - name: batched
    visible: false
    args:
      x: {{tensor: [2, 4, 3], seed: 2}}
properties: []
misconceptions: []
'''

CODE = '''"""{id}: its own laws, its picture for `attnlab viz` and an example call (see attnlab.core.exercises)."""

import torch

from attnlab.core.examples import Example, randn

MESSAGES: dict = {{}}  # the sentences of this exercise's own laws: {{key: {{"en": ..., "zh": ...}}}}


def example(g: torch.Generator, lead: tuple[int, ...], dtype: torch.dtype) -> Example:
    return Example({{"x": randn(g, *lead, 5, 3, dtype=dtype)}}, ("x",), 3)
'''

REFERENCE = '''"""TODO: what this exercise teaches, and where the notes explain it."""

from jaxtyping import Float
from torch import Tensor


def run_{id}(x: Float[Tensor, "... seq d"]) -> Float[Tensor, "... seq d"]:
    """TODO: one line saying what it computes.

    Args:
        x: TODO, shape (..., seq, d).

    Returns:
        TODO, shape (..., seq, d), dtype and device of `x`.

    中文：TODO
    """
    # BEGIN SOLUTION
    raise NotImplementedError("TODO: the reference solution")
    # END SOLUTION
'''

MISCONCEPTIONS = '''"""{id}: known mistakes, one function per misconception id listed in spec/{id}.yaml,
taking run_{id}'s arguments. Diagnosis runs them on a failing case's inputs and names the one whose output
the student's equals.
"""
'''

MUTATIONS = '''# tests/mutations/{id}/

bug_<name>.py: a realistic wrong run_{id}, with DIAGNOSIS = "<misconception id>" (or None) and a
docstring saying what the student did. alt_<name>.py: a correct run_{id} written differently from the
reference. At least six bugs; `python -m attnlab.instructor.mutants {id}` reports them and the margins.
'''


def files_for(exercise_id: str, points: float, root: Path = paths.ROOT) -> dict[Path, str]:
    """Path -> text of every file the exercise owns, under the project `root`."""
    values = {"id": exercise_id, "points": f"{points:g}"}
    spec, reference = root / "spec", root / "reference"
    return {spec / f"{exercise_id}.yaml": SPEC.format(**values),
            spec / f"{exercise_id}.py": CODE.format(**values),
            reference / f"{exercise_id}.py": REFERENCE.format(**values),
            reference / "misconceptions" / f"{exercise_id}.py": MISCONCEPTIONS.format(**values),
            root / "tests" / "mutations" / exercise_id / "README.md": MUTATIONS.format(**values)}


def assignment_start(lines: list[str], assignment: str) -> int | None:
    """The line of course.yaml where `assignment` begins (`- id: <assignment>`), or None."""
    return next((i for i, line in enumerate(lines) if re.match(rf"\s*- id: {re.escape(assignment)}\s*$", line)), None)


def add_to_course(course_yaml: Path, assignment: str, exercise_id: str) -> None:
    """Append `- exercise_id` to the assignment's `exercises:` list, keeping the file's comments."""
    lines = course_yaml.read_text(encoding="utf-8").splitlines(keepends=True)
    start = assignment_start(lines, assignment)
    header = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("exercises:"))
    if lines[header].strip() == "exercises: []":  # a new assignment's first exercise
        indent = re.match(r"(\s*)", lines[header]).group(1)
        lines[header:header + 1] = [f"{indent}exercises:\n", f"{indent}  - {exercise_id}\n"]
        course_yaml.write_text("".join(lines), encoding="utf-8")
        return
    end = header + 1
    while end < len(lines) and re.match(r"\s+- \S", lines[end]) and not lines[end].lstrip().startswith("- id:"):
        end += 1
    indent = re.match(r"(\s*)", lines[end - 1]).group(1)
    lines.insert(end, f"{indent}- {exercise_id}\n")
    course_yaml.write_text("".join(lines), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m attnlab.instructor.new", description=__doc__.split("\n")[0])
    parser.add_argument("exercise_id")
    parser.add_argument("--assignment", required=True, help="the assignment of spec/course.yaml it joins")
    parser.add_argument("--points", type=float, default=10.0)
    parser.add_argument("--root", type=Path, default=paths.ROOT, help="the project (default: this checkout)")
    opts = parser.parse_args(argv)
    if not re.fullmatch(r"[a-z][a-z0-9_]*", opts.exercise_id):
        parser.error(f"{opts.exercise_id!r}: an id is lower_case_with_underscores (it names files and run_<id>)")
    if not non_negative(opts.points):
        parser.error(f"--points {opts.points:g}: an exercise is worth 0 points or more (nothing was written)")
    files = files_for(opts.exercise_id, opts.points, opts.root)
    existing = [str(p) for p in files if p.exists()]
    if existing:
        parser.error(f"already exists (nothing was written): {', '.join(existing)}")
    course_yaml = opts.root / "spec" / "course.yaml"
    if not course_yaml.is_file() or assignment_start(course_yaml.read_text(encoding="utf-8").splitlines(),
                                                     opts.assignment) is None:
        parser.error(f"{course_yaml} has no assignment {opts.assignment!r} (nothing was written)")
    for path, text in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(opts.root)}")
    add_to_course(course_yaml, opts.assignment, opts.exercise_id)
    print(f"added {opts.exercise_id} to assignment {opts.assignment} in spec/course.yaml: adjust its points, then "
          "follow docs/authoring.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
