"""Grading throughput: grade.py (runners forked from a warm server) against a naive baseline (a fresh
interpreter per submission running the same checks in-process), plus what a student waits for.

    python benchmarks/grading_throughput.py            # K = 40: 80 submissions, about 5 minutes here

In one run: K copies of the reference and K of a buggy submission (examples/submissions/bob_buggy)
graded by grade.py (--repeats times, the median run counts), then the same 2K by the naive baseline
(benchmarks/naive_grade.py, one interpreter each, --jobs at once; the scores must agree), then the checks
alone in one warm interpreter (what neither can avoid), one runner's start + call + stop per launcher
(benchmarks/runner_startup.py), and the handout's `pytest` over every exercise and over one (median of 3
after a warm-up, in a student's environment), beside `import torch` alone. Prints per-submission overhead
(core-seconds per submission beyond the checks alone), submissions/s, the ratios, and MET / NOT MET per
target. Exits 0 whether or not targets are met (it is a measurement, not a test); 1 only if something
failed to run.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from attnlab.core.cpus import usable_cpus

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "submissions"
KINDS = {"ref": EXAMPLES / "reference", "bug": EXAMPLES / "bob_buggy"}
TARGETS = {"speed-up (submissions/s, grade.py / naive)": (10.0, "x", ">="),
           "overhead ratio (naive / grade.py)": (10.0, "x", ">="), "grade.py submissions/s": (5.0, "/s", ">="),
           "student: every exercise (pytest)": (10.0, " s", "<="),
           "student: one exercise (pytest -m softmax)": (3.0, " s", "<=")}


def make_copies(work: Path, copies: int) -> list[Path]:
    made = []
    for kind, source in KINDS.items():
        for i in range(copies):
            target = work / "submissions" / f"{kind}-{i:03d}"
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
            made.append(target)
    return made


def run(argv: list[str], *, what: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run argv from the repo root; (wall seconds, stdout). Exits if it fails: the numbers would be lies."""
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, check=False, env=env)
    seconds = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"benchmark: {what} failed (exit {proc.returncode}):\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return seconds, proc.stdout


def grade_py(subs: list[Path], out: Path, *, seed: int, jobs: int) -> tuple[float, dict[str, float]]:
    argv = [sys.executable, "grade.py", *map(str, subs), "--out", str(out), "--seed", str(seed),
            "--jobs", str(jobs)]
    seconds, _ = run(argv, what="grade.py")
    scores = {p.name: json.loads((out / f"{p.name}.json").read_text())["score"] for p in subs}
    return seconds, scores


def naive(subs: list[Path], *, seed: int, jobs: int) -> tuple[float, dict[str, float]]:
    """A fresh interpreter per submission, `jobs` at once."""
    def one(sub: Path) -> dict:
        _, out = run([sys.executable, "benchmarks/naive_grade.py", str(sub), "--seed", str(seed)],
                     what=f"the naive baseline on {sub.name}")
        return json.loads(out.splitlines()[-1])

    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        rows = list(pool.map(one, subs))
    return time.perf_counter() - started, {r["submission"]: r["score"] for r in rows}


def checks_alone(*, seed: int) -> float:
    """Seconds per submission (mean of the two kinds) of the checks in a warm interpreter: pass 3 of 3."""
    _, out = run([sys.executable, "benchmarks/naive_grade.py", *map(str, KINDS.values()), "--seed", str(seed),
                  "--passes", "3"], what="the warm in-process checks")
    rows = [json.loads(line) for line in out.splitlines()]
    last = [r["seconds"] for r in rows if r["pass"] == 2]
    return sum(last) / len(last)


def runner_startup() -> dict[str, float]:
    """Seconds for one runner (start, one guarded call, stop) per launcher."""
    _, out = run([sys.executable, "benchmarks/runner_startup.py"], what="the runner start-up timing")
    return {row["launcher"]: row["seconds"] for row in map(json.loads, out.splitlines())}


def student_env() -> dict[str, str]:
    """A student's shell: Python's defaults, so bytecode (and pytest's rewritten test modules) is cached
    after the first run. Some machines set PYTHONDONTWRITEBYTECODE, which makes every run recompile."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def median_seconds(argv: list[str], *, what: str, runs: int = 3) -> float:
    """The median wall time of `runs` runs after one warm-up run (which fills the bytecode caches)."""
    run(argv, what=what, env=student_env())
    return sorted(run(argv, what=what, env=student_env())[0] for _ in range(runs))[runs // 2]


def student(marker: str | None) -> float:
    argv = [sys.executable, "-m", "pytest", "tests/test_exercises.py", "--impl", "reference", "-q"]
    return median_seconds(argv + (["-m", marker] if marker else []), what=f"pytest {' '.join(argv[3:])}")


def torch_import() -> float:
    """`import torch` alone in a fresh interpreter, exit included: a plain interpreter's exit spends ~0.5 s
    collecting torch's objects, which the harness's pytest plugin skips (harness/shutdown.py), so a pytest
    run can take less than this."""
    return median_seconds([sys.executable, "-c", "import torch"], what="import torch")


def verdict(name: str, value: float) -> str:
    target, unit, sense = TARGETS[name]
    met = value >= target if sense == ">=" else value <= target
    return f"  {name:<44} {value:8.2f}{unit:<3} target {sense} {target:g}{unit.strip()}: {'MET' if met else 'NOT MET'}"


def report(n: int, jobs: int, grade_s: float, naive_s: float, check_s: float, startup: dict[str, float],
           students: tuple[float, float], torch_s: float) -> None:
    rate, naive_rate = n / grade_s, n / naive_s
    overhead, naive_overhead = grade_s * jobs / n - check_s, naive_s * jobs / n - check_s
    print(f"\n{n} submissions (half reference, half buggy), {jobs} at once, {os.cpu_count()} cores")
    print(f"  checks alone, warm in-process       {check_s:7.3f} s per submission")
    print(f"  one runner (start, call, stop)      {startup['forkserver']:7.3f} s forked, "
          f"{startup['exec']:.3f} s fresh interpreter ({startup['exec'] / startup['forkserver']:.0f}x)")
    print(f"  grade.py        wall {grade_s:7.1f} s  {rate:6.2f} submissions/s  "
          f"overhead {overhead:6.3f} core-s per submission")
    print(f"  naive baseline  wall {naive_s:7.1f} s  {naive_rate:6.2f} submissions/s  "
          f"overhead {naive_overhead:6.3f} core-s per submission")
    print(f"  student pytest (median of 3, bytecode cached as by default): every exercise {students[0]:.2f} s, "
          f"one {students[1]:.2f} s; `python -c 'import torch'` {torch_s:.2f} s (its exit included)")
    print("targets:")
    print(verdict("speed-up (submissions/s, grade.py / naive)", rate / naive_rate))
    print(verdict("overhead ratio (naive / grade.py)", naive_overhead / max(overhead, 1e-3)))
    print(verdict("grade.py submissions/s", rate))
    print(verdict("student: every exercise (pytest)", students[0]))
    print(verdict("student: one exercise (pytest -m softmax)", students[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description="Grading throughput of grade.py against a naive baseline.")
    parser.add_argument("--copies", type=int, default=40, help="copies of each submission (K); grade.py's "
                        "start-up (~3 s) is shared by all of them, as in a course's run")
    parser.add_argument("--jobs", type=int, default=usable_cpus(), help="submissions graded at once")
    parser.add_argument("--repeats", type=int, default=3, help="grade.py runs; the median counts (a shared "
                        "machine is noisy)")
    parser.add_argument("--seed", type=int, default=12345)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="attnlab-bench-") as tmp:
        work = Path(tmp)
        subs = make_copies(work, args.copies)
        runs = []
        for index in range(args.repeats):
            print(f"grading {len(subs)} submissions with grade.py ({index + 1}/{args.repeats}) ...", flush=True)
            runs.append(grade_py(subs, work / f"out{index}", seed=args.seed, jobs=args.jobs))
        grade_s, scores = sorted(runs, key=lambda run: run[0])[len(runs) // 2]  # the median run
        print("  wall: " + ", ".join(f"{seconds:.1f} s" for seconds, _ in runs), flush=True)
        print("grading them with the naive baseline ...", flush=True)
        naive_s, naive_scores = naive(subs, seed=args.seed, jobs=args.jobs)
    if scores != naive_scores:
        wrong = sorted(k for k in scores if scores[k] != naive_scores.get(k))
        sys.exit(f"benchmark: grade.py and the baseline disagree on {wrong[:5]}: not the same checks")
    print("timing the checks alone, one runner, and the student's pytest ...", flush=True)
    check_s = checks_alone(seed=args.seed)
    startup = runner_startup()
    students = (student(None), student("softmax"))
    report(len(subs), args.jobs, grade_s, naive_s, check_s, startup, students, torch_import())


if __name__ == "__main__":
    main()
