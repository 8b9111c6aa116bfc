"""How long similarity detection takes on classes of 500 and 5,000 submissions.

    python benchmarks/similarity.py [--counts 500 5000] [--copies 10]

Per size, generates a synthetic class (attnlab.instructor.synthetic, at most 500 submissions, replicated
beyond) with renamed copies, then pads every run_* with a statement unique to its submission, so that
no two submissions' code is identical (the worst case: identical code is grouped and costs nothing).
Prints the time to read the submissions (grade.py's intake: every upload checked, archives unpacked,
plain directories read in place) and to fingerprint and compare them, wall and CPU (fingerprinting is
spread over the cores), the pairs flagged and how many copies were flagged with their original, and the
machine's load average (wall times stretch with it; CPU times much less). The synthetic class draws every exercise
from a few corpus solutions, so far more pairs are alike than in a real class.
"""

import argparse
import ast
import os
import resource
import shutil
import tempfile
import time
from pathlib import Path

from attnlab.core import frameworks, paths
from attnlab.core.spec_load import load_course
from attnlab.instructor import similarity
from attnlab.instructor.sources import read_sources
from attnlab.instructor.synthetic import make_class

BASE = 500  # submissions generated; more are replicas of these


def pad_bodies(root: Path) -> None:
    """Before the last statement of every run_* of every submission, a tuple whose lengths encode the
    submission's index: normalised code all differs."""
    for index, package in enumerate(sorted(p for p in root.iterdir() if p.is_dir())):
        for path in sorted(package.glob("*.py")):
            text = path.read_text(encoding="utf-8")
            try:
                tree = ast.parse(text)
            except SyntaxError:
                continue
            lines = text.splitlines(keepends=True)
            functions = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("run_")]
            for node in sorted(functions, key=lambda n: -n.lineno):
                last = node.body[-1]
                first, second = 1 + index % 40, 1 + index // 40 % 40
                pad = f"{' ' * last.col_offset}_pad = ({', '.join(['0'] * first)},), ({', '.join(['1'] * second)},)\n"
                lines.insert(last.lineno - 1, pad)
            path.write_text("".join(lines), encoding="utf-8")


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (the fingerprinting workers)."""
    mine, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return mine.ru_utime + mine.ru_stime + children.ru_utime + children.ru_stime


def make(root: Path, count: int, copies: int) -> list:
    """At most BASE generated submissions (generating is slow), replicated up to `count`; padding then
    makes every replica's code its own."""
    planted = make_class(root, count=min(count, BASE) - copies, seed=1, copies=copies)
    packages = sorted(p for p in root.iterdir() if p.is_dir())
    for i in range(count - len(list(root.iterdir()))):
        shutil.copytree(packages[i % len(packages)], root / f"replica_{i:05d}")
    pad_bodies(root)
    return planted


def measure(count: int, copies: int, course) -> None:
    with tempfile.TemporaryDirectory(prefix="attnlab-similarity-") as tmp:
        root = Path(tmp) / "class"
        started = time.perf_counter()
        planted = make(root, count, copies)
        made = time.perf_counter() - started
        started, cpu = time.perf_counter(), cpu_seconds()
        submissions, skipped = read_sources(root, course)
        read, read_cpu = time.perf_counter() - started, cpu_seconds() - cpu
        started, cpu = time.perf_counter(), cpu_seconds()
        stubs = paths.template_dir(frameworks.adapter(course.framework))
        found = similarity.check(submissions, course, template_dir=stubs, skipped=skipped)
        compared, compared_cpu = time.perf_counter() - started, cpu_seconds() - cpu
    flagged = {(p.a, p.b) for p in found.pairs}
    caught = sum(tuple(sorted((p.name, p.copy_of))) in flagged for p in planted if p.copy_of)
    units = sum(len(u) for u in found.units.values())
    load = " ".join(f"{x:.1f}" for x in os.getloadavg())  # other work on the machine stretches wall times
    print(f"{count:>5} submissions ({len(skipped)} unreadable), {units} exercise units, {os.cpu_count()} cores: "
          f"read {read:.1f} s + fingerprint and compare {compared:.1f} s = {read + compared:.1f} s wall "
          f"(CPU {read_cpu:.1f} s + {compared_cpu:.1f} s; generating the class took {made:.0f} s); "
          f"{len(found.pairs)} pairs flagged; {caught}/{copies} renamed copies flagged with their original; "
          f"load average {load} (1, 5, 15 min)",
          flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counts", type=int, nargs="+", default=[500, 5000])
    parser.add_argument("--copies", type=int, default=10)
    args = parser.parse_args()
    course = load_course(paths.SPEC_DIR)
    for count in args.counts:
        measure(count, args.copies, course)


if __name__ == "__main__":
    main()
