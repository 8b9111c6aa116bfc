"""How long similarity detection takes on a class of N submissions (default 500).

    python benchmarks/similarity.py [--count 500] [--copies 10]

Generates a synthetic class (attnlab.instructor.synthetic) with renamed copies, in two forms: as
generated, where many students share the corpus' code and identical bodies collapse into groups, and
"distinct", where every run_* body also gets a padding statement unique to its submission, so no two
bodies are identical after normalisation (the worst case: a real class of independent work). Prints,
for each, the median of 3 runs of reading + fingerprinting + comparing, the pairs flagged, and how many
renamed copies were flagged with their original.
"""

import argparse
import ast
import statistics
import tempfile
import time
from pathlib import Path

from attnlab.core import paths
from attnlab.core.spec_load import load_course
from attnlab.instructor import similarity
from attnlab.instructor.synthetic import make_class


def pad_bodies(root: Path) -> None:
    """Before the last statement of every run_* of every submission, a tuple whose lengths encode the
    submission's index: normalised bodies all differ."""
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


def measure(root: Path, course, planted) -> None:
    times, found = [], None
    for _ in range(3):
        started = time.perf_counter()
        found = similarity.check_dir(root, course)
        times.append(time.perf_counter() - started)
    flagged = {(p.a, p.b) for p in found.pairs}
    copies = [p for p in planted if p.copy_of]
    caught = sum(tuple(sorted((p.name, p.copy_of))) in flagged for p in copies)
    bodies = sum(len(codes) for codes in found.bodies.values())
    groups = sum(len({b.tokens for b in codes.values()}) for codes in found.bodies.values())
    print(f"  {found.submissions} submissions ({len(found.skipped)} unreadable), {bodies} run_* bodies in "
          f"{groups} distinct normalised forms: median {statistics.median(times):.2f} s "
          f"(runs: {', '.join(f'{t:.2f}' for t in times)}); {len(found.pairs)} pairs flagged; "
          f"{caught}/{len(copies)} renamed copies flagged with their original")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=500)
    parser.add_argument("--copies", type=int, default=10)
    args = parser.parse_args()
    course = load_course(paths.SPEC_DIR)
    with tempfile.TemporaryDirectory(prefix="attnlab-similarity-") as tmp:
        root = Path(tmp) / "class"
        planted = make_class(root, count=args.count - args.copies, seed=1, copies=args.copies)
        print("as generated (many students share the corpus' code):")
        measure(root, course, planted)
        pad_bodies(root)
        print("distinct (every body differs after normalisation):")
        measure(root, course, planted)


if __name__ == "__main__":
    main()
