"""python grade.py SUBMISSION [SUBMISSION ...] --out DIR [--jobs N] [--timeout S] [--memory MB]

With no SUBMISSION, grades the bundled examples in examples/submissions/. Exit 0 when every submission
was graded (whatever it scored); 2 for a usage or configuration error, with a message.
"""

import argparse
import dataclasses
import json
import os
import queue
import secrets
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from harness import paths
from harness.grade import outputs
from harness.grade.judge import JudgeOptions, grade_submission, hidden_paths_for
from harness.grade.sandbox import Limits, isolation_level
from harness.grade.submissions import Submission, name_of
from harness.messages import default_lang
from harness.spec import SpecError
from harness.spec_load import load_course

RUN_FILE = "grading-run.json"  # the secret seed of this output dir; hidden from runners with the dir


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="grade.py", description="Grade attention-exercise submissions.")
    parser.add_argument("submissions", nargs="*", type=Path, help="package directories or .zip files")
    parser.add_argument("--out", type=Path, default=Path("grading-output"), help="results directory")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="submissions graded at once")
    parser.add_argument("--timeout", type=float, default=60.0, help="wall-clock seconds per exercise")
    parser.add_argument("--memory", type=int, default=4096, help="address-space cap per runner, MB")
    parser.add_argument("--seed", type=int, default=None, help="secret seed for fresh inputs (reproduce a run)")
    parser.add_argument("--force", action="store_true", help="regrade submissions already in --out")
    parser.add_argument("--gradescope", action="store_true", help="also write Gradescope results.json")
    parser.add_argument("--lang", choices=["en", "zh"], default=None, help="feedback language")
    parser.add_argument("--allow-unsandboxed", action="store_true",
                        help="grade even when started as root without namespaces (student code would run as root)")
    return parser.parse_args(argv)


def check_isolation(limits: Limits, allow_unsandboxed: bool) -> str:
    level = isolation_level(limits.isolation)
    if os.geteuid() == 0 and level == "rlimits-only" and not allow_unsandboxed:
        raise ValueError("started as root but namespaces are unavailable: student code would run as root. "
                         "Run as an ordinary user, enable unprivileged user namespaces, or pass --allow-unsandboxed")
    return level


def worker_limits(base: Limits, slot: int) -> Limits:
    """Each parallel worker runs as its own uid: RLIMIT_NPROC counts per uid, so one fork bomb must not
    starve the other runners of processes."""
    uid = base.uid if slot == 0 else 64000 + slot
    return dataclasses.replace(base, uid=uid, gid=uid)


def discover(args: list[Path]) -> list[Submission]:
    if not args:
        args = sorted(p for p in paths.EXAMPLES_DIR.iterdir() if not p.name.startswith("."))
    subs = [Submission(name=name_of(p), source=p.resolve()) for p in args]
    names = [s.name for s in subs]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"two submissions share the name {dupes[0]!r}; results are named after submissions")
    return subs


def run_seed(out_dir: Path, requested: int | None) -> int:
    """The run's secret seed: --seed, else the one already recorded in --out, else a new random one."""
    record = out_dir / RUN_FILE
    if requested is None and record.exists():
        return int(json.loads(record.read_text())["seed"])
    seed = requested if requested is not None else secrets.randbits(62)
    outputs.atomic_write(record, json.dumps({"seed": seed}) + "\n")
    return seed


def print_table(results: list[dict]) -> None:
    width = max([len(r["submission"]) for r in results] + [10])
    print(f"{'submission':<{width}}  {'score':>13}  exercises passed")
    for r in sorted(results, key=lambda d: d["submission"]):
        passed = sum(e["status"] == "passed" for e in r["exercises"])
        print(f"{r['submission']:<{width}}  {r['score']:>6.2f} / {r['max_score']:<4g}  {passed}/{len(r['exercises'])}")


def main(argv: list[str] | None = None) -> int:
    opts = parse_args(argv)
    try:
        course = load_course(paths.SPEC_DIR)
        submissions = discover(opts.submissions)
        limits = Limits(timeout_s=opts.timeout, memory_mb=opts.memory)
        if opts.jobs < 1:
            raise ValueError("--jobs must be at least 1")
        level = check_isolation(limits, opts.allow_unsandboxed)
    except (SpecError, ValueError, OSError) as exc:
        print(f"grade.py: {exc}", file=sys.stderr)
        return 2
    out_dir = opts.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    judge = JudgeOptions(seed=run_seed(out_dir, opts.seed), limits=limits, lang=opts.lang or default_lang(),
                         hidden_paths=hidden_paths_for(out_dir, submissions))
    todo = [s for s in submissions if opts.force or outputs.read_result(outputs.result_path(out_dir, s.name)) is None]
    print(f"grading {len(todo)} of {len(submissions)} submissions ({len(submissions) - len(todo)} already done), "
          f"isolation: {level}", file=sys.stderr)
    slots: queue.SimpleQueue[int] = queue.SimpleQueue()
    for slot in range(opts.jobs):
        slots.put(slot)

    def one(sub: Submission) -> None:
        slot = slots.get()
        try:
            result = grade_submission(sub, course, dataclasses.replace(judge, limits=worker_limits(limits, slot)))
        finally:
            slots.put(slot)
        outputs.write_result(out_dir, result)
        if opts.gradescope:
            outputs.write_gradescope(out_dir / "gradescope" / f"{sub.name}.json", result)
            if len(submissions) == 1:
                outputs.write_gradescope(out_dir / "results.json", result)
        print(f"  {sub.name}: {result.score:g} / {result.max_score:g} ({result.duration_s:.1f} s)", file=sys.stderr)

    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        list(pool.map(one, todo))
    outputs.write_summary(out_dir, [e.id for e in course.exercises])
    print_table([r for s in submissions if (r := outputs.read_result(outputs.result_path(out_dir, s.name)))])
    return 0
