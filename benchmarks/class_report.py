"""The class report at class size: generate N varied submissions, grade them with grade.py, report.

    python benchmarks/class_report.py [--count 200] [--jobs N]

Prints how long each step took: generating the class (attnlab.instructor.synthetic), grading it
(grade.py, submissions per second), and rendering the report in English and Chinese with its
similar-code section, with the size of the HTML file.
"""

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnlab.core import paths
from attnlab.core.cpus import usable_cpus
from attnlab.instructor.report import render
from attnlab.instructor.synthetic import make_class


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=usable_cpus())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnlab-class-") as tmp:
        work = Path(tmp)
        started = time.perf_counter()
        make_class(work / "class", count=args.count, seed=3)
        print(f"generated {args.count} submissions in {time.perf_counter() - started:.1f} s")
        started = time.perf_counter()
        submissions = sorted(map(str, (work / "class").iterdir()))
        done = subprocess.run([sys.executable, str(paths.ROOT / "grade.py"), *submissions, "--out", str(work / "out"),
                               "--seed", "1", "--jobs", str(args.jobs)], cwd=paths.ROOT, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"grade.py failed:\n{done.stderr[-3000:]}")
        graded = time.perf_counter() - started
        print(f"graded them with grade.py --jobs {args.jobs} in {graded:.1f} s "
              f"({args.count / graded:.2f} submissions/s)")
        for lang in ("en", "zh"):
            started = time.perf_counter()
            html = render(work / "out", lang=lang, submissions_dir=work / "class")
            print(f"report ({lang}, with similar code): {time.perf_counter() - started:.1f} s, "
                  f"{len(html.encode()) / 1e6:.1f} MB of HTML")


if __name__ == "__main__":
    main()
