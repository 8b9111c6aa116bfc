"""Grading rate per framework: grade.py on K copies of a framework's reference beside K copies of torch's,
and what importing the framework costs a fresh interpreter.

    python benchmarks/framework_throughput.py --framework numpy            # K = 8 copies each, --jobs 2
    python benchmarks/framework_throughput.py --framework jax --copies 20

Each framework's class is graded by one grade.py run (same seed, same --jobs); the reference of a framework
other than torch gets the quiz answers a student would hand in. Prints wall seconds per submission,
submissions per second, the median time grade.py reports per submission, and the framework's import time
and peak RSS in a fresh interpreter. A measurement, not a test: exits 1 only if a run fails or a reference
does not get full marks.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from attnlab.core import frameworks, paths  # noqa: E402

# peak RSS from /proc (VmHWM: this interpreter's own peak; ru_maxrss would carry over the parent's across exec)
IMPORT = ("import sys, time\n"
          "def peak():\n"
          "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM'))\n"
          "before, started = peak(), time.perf_counter()\n"
          "__import__(sys.argv[1])\n"
          "print(time.perf_counter() - started, (peak() - before) / 1024)")


def class_of(framework: str, work: Path, copies: int) -> list[Path]:
    made = []
    for i in range(copies):
        target = work / framework / f"{framework}-{i:03d}"
        shutil.copytree(paths.reference_dir(framework), target, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copy2(paths.REFERENCE_DIR / "quiz.yaml", target / "quiz.yaml")
        made.append(target)
    return made


def grade(framework: str, submissions: list[Path], out: Path, jobs: int) -> dict:
    argv = [sys.executable, str(ROOT / "grade.py"), *map(str, submissions), "--framework", framework,
            "--out", str(out), "--seed", "1", "--jobs", str(jobs)]
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"grade.py --framework {framework} failed:\n{proc.stderr[-3000:]}")
    scores = [json.loads((out / f"{s.name}.json").read_text()) for s in submissions]
    if any(r["score"] != r["max_score"] for r in scores):
        sys.exit(f"a {framework} reference did not get full marks: see {out}")
    each = [float(s) for s in re.findall(r": [\d.]+ / [\d.]+ \(([\d.]+) s\)", proc.stdout + proc.stderr)]
    return {"wall": wall, "median_each": statistics.median(each) if each else float("nan")}


def import_cost(module: str) -> tuple[float, float]:
    """(seconds, MiB of peak RSS) to import `module` in a fresh interpreter; the median of 3 runs."""
    runs = [subprocess.run([sys.executable, "-c", IMPORT, module], capture_output=True, text=True, check=True)
            for _ in range(3)]
    seconds, mib = zip(*(map(float, r.stdout.split()) for r in runs))
    return statistics.median(seconds), statistics.median(mib)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--framework", required=True, choices=[f for f in frameworks.MODULES if f != "torch"])
    parser.add_argument("--copies", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    frameworks.check_usable(args.framework)
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {args.copies} submissions each, "
          f"--jobs {args.jobs}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for framework in ("torch", args.framework):
            submissions = class_of(framework, work, args.copies)
            rate = grade(framework, submissions, work / f"out-{framework}", args.jobs)
            module = frameworks.adapter(framework).module
            seconds, mib = import_cost(module)
            print(f"{framework:>10}: {rate['wall'] / args.copies:.2f} s per submission (wall), "
                  f"{args.copies / rate['wall']:.2f} submissions/s, {rate['median_each']:.2f} s median per "
                  f"submission as grade.py reports it; import {module}: {seconds:.2f} s, {mib:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
