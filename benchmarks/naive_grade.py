"""The naive baseline of grading_throughput.py: a fresh interpreter that grades submissions in-process.

Same checks and fresh inputs as grade.py (InProcessImpl + attnlab.core.scoring: every case, property and
quiz question, expected values from the reference, inputs drawn from --seed), but no runner, no sandbox
and no reuse: run once per submission, each run pays `import torch` and every lazy import again.

    python benchmarks/naive_grade.py SUBMISSION_DIR [SUBMISSION_DIR ...] --seed N [--passes P]

Prints one JSON line per submission and pass: {"submission", "pass", "score", "seconds"}. With
--passes 2 the second pass times the checks alone, in a warm interpreter.
"""

import argparse
import json
import time
from pathlib import Path

from attnlab.core import frameworks, paths
from attnlab.core.impl import InProcessImpl
from attnlab.core.scoring import grade_exercise, grade_quiz, load_reference, make_context, read_answers
from attnlab.core.spec import QuizSpec
from attnlab.core.spec_load import load_course


def grade(package: Path, *, course, reference, seed: int) -> float:
    """The submission's total score, computed as grade.py's judge computes it."""
    impl = InProcessImpl(package, adapter=frameworks.default())
    score = 0.0
    for exercise in course.exercises:
        if isinstance(exercise, QuizSpec):
            key = read_answers(paths.REFERENCE_DIR / exercise.answers_file)
            result = grade_quiz(exercise, read_answers(package / exercise.answers_file), key, lang="en")
        else:
            ctx = make_context(exercise, impl, lang="en", fresh_seed=seed, reference=reference, fixtures_dir=None)
            result = grade_exercise(ctx)
        score += result.score
    return round(score, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submissions", nargs="+", type=Path)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--passes", type=int, default=1)
    args = parser.parse_args()
    course, reference = load_course(paths.SPEC_DIR), load_reference()
    for index in range(args.passes):
        for package in args.submissions:
            started = time.perf_counter()
            score = grade(package.resolve(), course=course, reference=reference, seed=args.seed)
            print(json.dumps({"submission": package.name, "pass": index, "score": score,
                              "seconds": round(time.perf_counter() - started, 4)}), flush=True)


if __name__ == "__main__":
    main()
