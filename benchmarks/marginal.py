"""What one more submission costs grade.py, per framework, in one run: the targets of issue 23.

    python benchmarks/marginal.py                         # torch and JAX; about 10 minutes here
    python benchmarks/marginal.py --mindspore .venv-mindspore/bin/python --suite

For each framework, grade.py grades K and K + EXTRA copies of the framework's reference of the `attention`
assignment (--jobs 1, the same seed): the marginal cost of a submission is the difference divided by EXTRA,
in wall seconds and in CPU seconds (grade.py and everything it started: the judge, the forkserver, the
runners). torch: 2 and 22 copies, three times, the median difference kept (a tenth of a second per copy
against a start of seconds); MindSpore 2 and 8, three times too, each round right after torch's, and its
ratio to torch is the median of the rounds' ratios (it sits near the target, and the machine's speed drifts
between rounds); JAX 1 and 3, once (a pair takes a minute), against torch's median. JAX first fills
its compilation cache from the reference (timed apart: once per course secret and version), so its
marginal cost is that of a submission graded with the cache. torch's is set beside a fresh
interpreter's `import torch` (the floor of grading each submission in a new process). torch is also graded
at grade.py's default --jobs (one worker per CPU: what an instructor gets), printed beside the targets; the
targets are --jobs 1's, one submission's cost against one fresh interpreter's. --suite: the fast tier
(pytest -m "not e2e and not slow") and its CPU seconds. Then, unless --no-floor, the reference's own code
alone per framework (benchmarks/student_code.py): what no change to the harness removes, set beside torch's
whole marginal cost. The load average is printed before and after: the
machine may be shared, and ratios measured in one run are what to compare; so is a fixed Python loop's time,
before and after, which shows the host's contention that the load average misses. Prints; judges nothing.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from attnlab.core.cpus import usable_cpus

sys.path.insert(0, str(Path(__file__).resolve().parent))
import student_code  # noqa: E402 -- a sibling script, not a package

ROOT = Path(__file__).resolve().parents[1]
SEED = "20261126"
TARGETS = {"torch submissions/s": 10.0, "torch: fresh import / marginal": 20.0, "JAX / torch (CPU)": 3.0,
           "MindSpore / torch (CPU)": 3.0, "fast tier CPU s": 60.0}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(argv: list[str], env: dict[str, str] | None = None) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall s, CPU s of the process and everything it waited for, the finished process)."""
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env)
    return time.perf_counter() - start, children_cpu() - cpu, done


def copies(source: Path, count: int, where: Path) -> list[Path]:
    made = []
    for i in range(count):
        target = where / f"student{i:02d}"
        shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "misconceptions", "numpy",
                                                                      "jax", "mindspore"))
        made.append(target)
    return made


def grade(python: str, framework: str, count: int, work: Path, env: dict[str, str],
          jobs: int | None = 1) -> tuple[float, float]:
    """jobs: grade.py's --jobs (None: its default, one per CPU)."""
    source = ROOT / "reference" / ("" if framework == "torch" else framework)
    batch = work / f"{framework}-{count}-{jobs or 'default'}"
    subs = copies(source, count, batch)
    wall, cpu, done = timed([python, "grade.py", *map(str, subs), "--framework", framework, "--assignment",
                             "attention", "--seed", SEED, *(["--jobs", str(jobs)] if jobs else []),
                             "--out", str(batch / "out")], env)
    if done.returncode != 0:
        sys.exit(f"grade.py failed for {framework}:\n{done.stderr[-3000:]}")
    scores = [json.loads((batch / "out" / f"{s.name}.json").read_text())["score"] for s in subs]
    coded = [e for e in json.loads((batch / "out" / f"{subs[0].name}.json").read_text())["exercises"]
             if e["id"] != "quiz"]
    if not all(e["status"] == "passed" for e in coded):
        sys.exit(f"the {framework} reference did not pass: {[(e['id'], e['status']) for e in coded]} {scores}")
    return wall, cpu


def pair(python: str, framework: str, first: int, extra: int, where: Path, env: dict[str, str],
         jobs: int | None = 1) -> dict:
    """K and K + extra copies graded: the per-copy difference in wall and CPU seconds."""
    (wall_a, cpu_a), (wall_b, cpu_b) = (grade(python, framework, first, where, env, jobs),
                                        grade(python, framework, first + extra, where, env, jobs))
    return {"wall_s": (wall_b - wall_a) / extra, "cpu_s": (cpu_b - cpu_a) / extra,
            "runs": f"{first}: {wall_a:.1f} s / {cpu_a:.1f} CPU s, {first + extra}: {wall_b:.1f} s / {cpu_b:.1f} CPU s"}


def summary(framework: str, pairs: list[dict], how: str = "") -> dict:
    """The pair with the median wall-time difference (torch's is tenths of a second against grade.py's start
    of seconds), printed."""
    found = dict(sorted(pairs, key=lambda p: p["wall_s"])[len(pairs) // 2])
    if len(pairs) > 1:
        found["runs"] += f"; the median of {len(pairs)} pairs by wall time"
    print(f"  {framework:<10} {how}marginal {found['wall_s']:6.2f} s wall, {found['cpu_s']:6.2f} CPU s per submission "
          f"({found['runs']})", flush=True)
    return found


def cpu_limit(framework: str) -> str:
    """The framework's per-exercise CPU limit and its factor over torch's (core.config)."""
    sys.path.insert(0, str(ROOT))
    from attnlab.core import frameworks
    from attnlab.core.config import exercise_cpu_s

    adapter = frameworks.adapter(framework)
    return f"{exercise_cpu_s(adapter):g} s (cpu_factor {adapter.cpu_factor:g} x torch's)"


def machine_speed() -> float:
    """Seconds a fixed pure-Python loop takes (median of 3). The load average misses what slows this VM most:
    its host's other guests. It took 0.46 s before and 0.29 s after one 4-minute run of this benchmark
    (2026-11-27 18:56-19:00, load 2.6 and 1.4)."""
    seconds = []
    for _ in range(3):
        start, total = time.perf_counter(), 0
        for i in range(10**7):
            total += i
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds)


def fresh_import(python: str, module: str) -> float:
    seconds = []
    for _ in range(3):
        wall, _, _ = timed([python, "-c", f"import {module}"])
        seconds.append(wall)
    return statistics.median(seconds)


def fast_tier() -> tuple[float, float, str]:
    env = {**os.environ, "ATTNLAB_SKIP_MINDSPORE": "1"}
    wall, cpu, done = timed([sys.executable, "-m", "pytest", "-m", "not e2e and not slow", "-q", "-p",
                             "no:cacheprovider"], env)
    return wall, cpu, (done.stdout.strip().splitlines() or ["?"])[-1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--first", type=int, default=2, help="copies in the first run (K)")
    parser.add_argument("--extra", type=int, default=20,
                        help="torch: copies the second run has beyond the first (4 left the difference in noise)")
    parser.add_argument("--repeat", type=int, default=3, help="torch: pairs graded, the median kept")
    parser.add_argument("--jax-extra", type=int, default=2, help="the same for JAX (each copy costs more)")
    parser.add_argument("--mindspore-extra", type=int, default=6,
                        help="the same for MindSpore (2 against 2 + this: 1 against 3 was too noisy to compare)")
    parser.add_argument("--mindspore-repeat", type=int, default=3,
                        help="MindSpore: pairs graded, the median kept (its ratio to torch sits near the target)")
    parser.add_argument("--mindspore", default=None, help="a python with mindspore (its own venv)")
    parser.add_argument("--no-jax", action="store_true")
    parser.add_argument("--suite", action="store_true", help="also time the fast tier")
    parser.add_argument("--no-floor", action="store_true", help="skip the student's code alone (student_code.py)")
    args = parser.parse_args()
    print(f"load average before: {os.getloadavg()}, {os.cpu_count()} CPUs; a fixed Python loop: "
          f"{machine_speed():.2f} s", flush=True)
    figures = {}
    with tempfile.TemporaryDirectory(prefix="attnlab-marginal-") as tmp:
        work = Path(tmp)
        env = {**os.environ, "ATTNLAB_COMPILE_CACHE": str(work / "compile-cache")}
        print("grade.py, marginal cost of one more copy of the reference (attention, --jobs 1):", flush=True)
        # torch's and MindSpore's pairs in turn, round by round, so that each MindSpore/torch ratio compares
        # two measurements minutes apart: this machine's speed drifts by a fifth over an hour
        rounds = max(args.repeat, args.mindspore_repeat if args.mindspore else 0)
        torch_pairs, mindspore_pairs, default_pairs = [], [], []
        for round_ in range(rounds):
            where = work / f"round{round_}"
            if round_ < args.repeat:
                torch_pairs.append(pair(sys.executable, "torch", args.first, args.extra, where, env))
                default_pairs.append(pair(sys.executable, "torch", args.first, args.extra, where, env, jobs=None))
            if args.mindspore and round_ < args.mindspore_repeat:
                mindspore_pairs.append(pair(args.mindspore, "mindspore", args.first, args.mindspore_extra, where,
                                            env))
        torch = summary("torch", torch_pairs)
        floor = fresh_import(sys.executable, "torch")
        figures["torch submissions/s"] = 1 / torch["wall_s"]
        figures["torch: fresh import / marginal"] = floor / torch["wall_s"]
        print(f"  a fresh `import torch`: {floor:.2f} s; torch: {1 / torch['wall_s']:.1f} submissions/s, "
              f"{floor / torch['wall_s']:.1f}x the fresh-interpreter floor", flush=True)
        # what an instructor running grade.py as it comes gets: one worker per CPU (not a target of its own:
        # the targets above are --jobs 1's, one submission's cost against one fresh interpreter's)
        spread = summary("torch", default_pairs, f"--jobs {usable_cpus()} (the default) ")
        print(f"  torch at grade.py's default --jobs {usable_cpus()}: {1 / spread['wall_s']:.1f} submissions/s, "
              f"{spread['cpu_s'] / torch['cpu_s']:.2f}x the CPU per copy of --jobs 1", flush=True)
        if args.mindspore:
            summary("mindspore", mindspore_pairs)
            ratios = [m["cpu_s"] / t["cpu_s"] for m, t in zip(mindspore_pairs, torch_pairs)]
            figures["MindSpore / torch (CPU)"] = statistics.median(ratios)
            print(f"  MindSpore / torch CPU per copy, round by round: {', '.join(f'{r:.2f}' for r in ratios)}; "
                  "the median kept", flush=True)
        if not args.no_jax:
            wall, cpu = grade(sys.executable, "jax", 2, work / "fill", env)
            print(f"  jax: filling its compilation cache and grading 2 copies: {wall:.1f} s, {cpu:.1f} CPU s",
                  flush=True)
            jax = summary("jax", [pair(sys.executable, "jax", 1, args.jax_extra, work, env)])
            figures["JAX / torch (CPU)"] = jax["cpu_s"] / torch["cpu_s"]
            print(f"  JAX's CPU limit per exercise: {cpu_limit('jax')}", flush=True)
    if not args.no_floor:
        # what no harness change removes: the reference's own code under each framework, per copy
        print("the reference's own code alone, per copy, in-process (benchmarks/student_code.py):", flush=True)
        own = student_code.report(jax=not args.no_jax, mindspore=args.mindspore)
        for framework in ("jax", "mindspore"):
            if framework in own:
                times = own[framework]["student"] / torch["cpu_s"]
                print(f"  {framework}'s own code alone is {times:.1f}x torch's whole marginal CPU per copy: "
                      "the floor under its ratio", flush=True)
    if args.suite:
        wall, cpu, line = fast_tier()
        figures["fast tier CPU s"] = cpu
        print(f"fast tier: {wall:.0f} s wall, {cpu:.0f} CPU s ({line})", flush=True)
    print(f"load average after: {os.getloadavg()}; the fixed Python loop: {machine_speed():.2f} s")
    for name, value in figures.items():
        target = TARGETS[name]
        met = value <= target if name.endswith(("(CPU)", "CPU s")) else value >= target
        print(f"  {name:<34} {value:8.2f}   target {'<=' if name.endswith(('(CPU)', 'CPU s')) else '>='} "
              f"{target:g}: {'MET' if met else 'NOT MET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
