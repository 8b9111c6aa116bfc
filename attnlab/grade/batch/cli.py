"""python grade.py SUBMISSION [SUBMISSION ...] --out DIR [--jobs N] [--timeout S] [--import-timeout S] [--memory MB]
       [--shard I/N]
   python grade.py merge DIR [DIR ...] --out DIR

With no SUBMISSION, grades the bundled examples of the framework (examples/submissions/ for torch,
examples/<framework>/ for the others). Exit 0 when every submission
was graded (whatever it scored); 2 for a usage or configuration error, with a message. `merge` combines
the output dirs of shards (merge.py).
"""

import argparse
import contextlib
import dataclasses
import hashlib
import json
import math
import os
import signal
import sys
import threading
import time
from pathlib import Path

from attnlab.core import config, paths, shutdown
from attnlab.core.config import EXERCISE_CPU_S, Limits
from attnlab.core.cpus import usable_cpus
from attnlab.core.i18n import t
from attnlab.core.spec import QuizSpec, SpecError
from attnlab.grade.batch import outputs, preflight, secret
from attnlab.grade.batch.checks_digest import checks_digest, same_checks
from attnlab.grade.batch.intake import check_out, check_paths, discover
from attnlab.grade.batch.run import grade_all, with_compile_cache, worker_cpus, worker_limits
from attnlab.grade.batch.submissions import Layout
from attnlab.grade.judge import compile_cache
from attnlab.grade.sandbox import forkserver, host, runs
from attnlab.grade.sandbox.launch import LAUNCHERS, runner_server, validated
from attnlab.grade.sandbox.levels import Isolation, isolation_level, missing_capabilities

DEFAULT_TIMEOUT_S = EXERCISE_CPU_S
RESERVE_S = 120.0  # of a --budget: grade.py's start, the runner's start and the submission's import


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    return build_parser().parse_args(argv)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="grade.py", description="Grade attention-exercise submissions. "
                                     "`grade.py merge DIR... --out DIR` combines shard outputs.")
    parser.add_argument("submissions", nargs="*", type=Path,
                        help="package directories or .zip files, or a class as an LMS exports it (docs/intake.md)")
    parser.add_argument("--layout", type=Layout, choices=list(Layout), default=None,
                        help="how each path holds submissions (default: detected per path; docs/intake.md)")
    parser.add_argument("--out", type=Path, default=Path("grading-output"), help="results directory")
    config.add_arguments(parser)  # --assignment, --framework, --device, --lang: as attnlab and pytest take them
    parser.add_argument("--jobs", type=int, default=usable_cpus(),
                        help="submissions graded at once (default: the CPUs this process may use, %(default)s here)")
    parser.add_argument("--timeout", type=float, default=None,
                        help=f"CPU seconds per exercise (the wall clock is a backstop at {Limits.wall_factor:g}x + "
                             f"{Limits.wall_extra_s:g} s); default {EXERCISE_CPU_S:g} times the framework's "
                             "cpu_factor (README: Frameworks), or with --budget what lets every exercise finish "
                             "within it")
    parser.add_argument("--import-timeout", type=float, default=None,
                        help="CPU seconds for importing a submission (its module-level code), with the same "
                             f"wall-clock backstop; default {Limits.import_timeout_s:g}")
    parser.add_argument("--budget", type=float, default=None,
                        help="wall-clock seconds for the whole run: no exercise starts after it (those left "
                             "score 0 and say so)")
    parser.add_argument("--memory", type=int, default=None,
                        help="address-space cap per runner, MB (default: the framework's, 4096 for torch; none with "
                             "--device cuda, whose context reserves far more address space than it uses)")
    parser.add_argument("--seed", type=int, default=None, help="secret seed for fresh inputs (reproduce a run)")
    parser.add_argument("--force", action="store_true", help="regrade submissions already in --out")
    parser.add_argument("--gradescope", action="store_true", help="also write Gradescope results.json")
    parser.add_argument("--shard", type=parse_shard, default=None, metavar="I/N",
                        help="grade only shard I of N (0 <= I < N; by a stable hash of each submission's name)")
    parser.add_argument("--launcher", choices=LAUNCHERS, default="auto",
                        help="how runners start: forked from a warm server, or a fresh interpreter each (exec)")
    parser.add_argument("--allow-unsandboxed", action="store_true",
                        help="grade even when started as root without namespaces (student code would run as root)")
    parser.add_argument("--isolation", choices=["auto", *(i.value for i in Isolation)], default="auto",
                        help="a weaker isolation level than the best this machine offers (tests, debugging)")
    return parser


def parse_shard(text: str) -> tuple[int, int]:
    index, sep, count = text.partition("/")
    if not (sep and index.isdigit() and count.isdigit() and 0 <= int(index) < int(count)):
        raise argparse.ArgumentTypeError(f"--shard wants I/N with 0 <= I < N (e.g. 0/4), got {text!r}")
    return int(index), int(count)


def shard_of(name: str, count: int) -> int:
    """The shard that grades `name`: a stable hash of the name alone, so adding or removing submissions
    never moves the others to another shard (changing the number of shards does)."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big") % count


def check_isolation(limits: Limits, allow_unsandboxed: bool, lang: str) -> Isolation:
    """The level runners get; refused as root where student code would run as root."""
    level = isolation_level(limits.isolation)
    if os.geteuid() == 0 and level is Isolation.RLIMITS_ONLY and not allow_unsandboxed:
        missing = missing_capabilities()
        why = (t("isolation.missing_capabilities", lang, names=", ".join(missing)) if missing
               else t("isolation.forced", lang))
        raise ValueError(t("isolation.refused", lang, level=level, why=why))
    return level


def budget_timeout(budget_s: float, exercises: int, limits: Limits, cap: float = DEFAULT_TIMEOUT_S) -> float:
    """The per-exercise CPU limit with which every exercise could run out its whole wall-clock backstop
    (Limits.backstop) and the run still end within `budget_s` (at most the default, at least 1 s)."""
    per_exercise = (budget_s - min(RESERVE_S, budget_s / 4)) / max(exercises, 1)
    return min(cap, max(1.0, (per_exercise - limits.wall_extra_s) / limits.wall_factor))


def run_seed(out_dir: Path, requested: int | None, assignment: str, framework: str, recorded: dict | None, *,
             force: bool) -> int:
    """The run's seed for fresh inputs: --seed, else the course secret's for the assignment (made on first use,
    grade/batch/secret.py), so every run grades the same code alike. Recorded in --out (hidden from runners),
    with the assignment and framework graded (check_same_grading): a rerun into a directory graded with --seed
    goes on with that seed; one graded with another course secret is refused unless --force regrades all of it.
    `recorded`: the record found there (recorded_run), of this assignment and framework (main checked)."""
    record = out_dir / outputs.RUN_FILE
    fingerprint = None
    if requested is not None:
        seed = requested
    else:
        value, made = secret.ensure(secret.secret_file())
        seed, fingerprint = secret.assignment_seed(value, assignment), secret.fingerprint(value)
        if made:
            print(f"grade.py: made the course secret {secret.secret_file()} (keep it: it decides every hidden "
                  "input; `python -m attnlab.instructor.secret rotate` makes a new one)", file=sys.stderr)
        if recorded is not None and recorded["seed"] != seed and not force:
            if recorded.get("secret") == fingerprint:  # a record from before assignments were recorded
                raise ValueError(f"{out_dir} was graded for another assignment (with this course secret): grade "
                                 "each assignment into its own --out, or add --force to regrade all of it")
            if recorded.get("secret") is not None:
                raise ValueError(f"{out_dir} was graded with another course secret ({recorded['secret']}, now "
                                 f"{fingerprint}): grade into a new --out, or add --force to regrade all of it")
            seed, fingerprint = int(recorded["seed"]), None  # graded with --seed N: go on with it
    outputs.atomic_write(record, json.dumps({"seed": seed, "secret": fingerprint, "assignment": assignment,
                                             "framework": framework}) + "\n")
    return seed


def check_same_grading(out_dir: Path, recorded: dict, assignment: str, framework: str) -> None:
    """ValueError where --out was graded for another assignment or framework: a rerun keeps finished results,
    and `--assignment modern` into the attention assignment's --out (the default grading-output, say) kept each
    student's attention result as their modern one, saying "1 already done". Older records name neither."""
    was = (recorded.get("assignment", assignment), recorded.get("framework", framework))
    if was != (assignment, framework):
        raise ValueError(f"{out_dir} holds the results of assignment {was[0]} in {was[1]}, and this run grades "
                         f"{assignment} in {framework}: grade each into its own --out, or add --force to regrade "
                         "all of it")


def recorded_run(record: Path, *, force: bool) -> dict | None:
    """The run record an earlier grade.py left in --out (None: none, or --force regrades all of it anyway);
    ValueError naming the file where it is not one (before intake reserved its name, a student's folder called
    grading-run had its result written over it)."""
    if not record.exists():
        return None
    try:
        found = json.loads(record.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        found = None
    if isinstance(found, dict) and type(found.get("seed")) is int:
        return found
    if force:
        return None
    raise ValueError(f"{record} is not a record of grade.py's (it should hold the run's seed): grade into a new "
                     "--out, or add --force to regrade all of it")


def warm_judge() -> None:
    """What the first checks would import (hypothesis, the reference) is imported now, while the runner
    server boots on the other core."""
    from attnlab.core import laws  # noqa: F401
    from attnlab.core.scoring import load_reference

    load_reference()


def check_limits(opts: argparse.Namespace) -> None:
    """The limits given, each a finite positive number (ValueError naming the option): a --budget of 0 or less
    started no exercise (every submission scored 0 on its code, with exit status 0), and an infinite limit never
    stops a submission's infinite loop."""
    for option, value in (("--timeout", opts.timeout), ("--import-timeout", opts.import_timeout),
                          ("--budget", opts.budget), ("--memory", opts.memory)):
        if value is not None and not (value > 0 and math.isfinite(value)):
            raise ValueError(f"{option} must be a finite positive number, got {value:g}")


def setup(opts: argparse.Namespace) -> tuple:
    """Everything checked before grading starts: (the run, all submissions, this shard's, isolation level).
    The run's seed is resolved later, once the output directory exists (run_seed)."""
    check_limits(opts)
    check_paths(opts.submissions)  # before the runner server starts: a mistyped path costs nothing
    check_out(opts.out, opts.submissions)
    if opts.launcher != "exec":  # the runner server imports torch while this process loads the specs
        with contextlib.suppress(forkserver.Unavailable):  # start_runner says so, and falls back if allowed
            runner_server(Limits(), config.framework_name(opts.assignment, opts.framework), wait=False)
    # not installed, or no such device for it: a usage error before anything runs
    run = config.resolve(assignment=opts.assignment, framework=opts.framework, device=opts.device, lang=opts.lang,
                         memory_mb=opts.memory, launcher=opts.launcher, isolation=opts.isolation)
    course = run.course
    submissions = discover(opts.submissions, markers=course.package_markers, layout=opts.layout,
                           examples=paths.examples_dir(run.adapter))
    mine = submissions
    if opts.shard is not None:
        index, count = opts.shard
        mine = [s for s in submissions if shard_of(s.name, count) == index]
    limits = validated(run.limits)
    timeout = opts.timeout if opts.timeout is not None else limits.timeout_s
    if opts.budget is not None and opts.timeout is None:
        coded = sum(not isinstance(e, QuizSpec) for e in course.exercises)
        timeout = budget_timeout(opts.budget, coded, limits, cap=limits.timeout_s)
    importing = opts.import_timeout if opts.import_timeout is not None else limits.import_timeout_s
    run = run.replace(limits=dataclasses.replace(limits, timeout_s=timeout, import_timeout_s=importing))
    if opts.jobs < 1:
        raise ValueError("--jobs must be at least 1")
    level = check_isolation(run.limits, opts.allow_unsandboxed, run.lang)
    return run, submissions, mine, level


def interpret_reference_kernels() -> None:
    """The judge computes each expected value with the reference in float64 on the CPU, where a Triton kernel
    runs only in the interpreter: here the reference's kernels are interpreted whatever the device (on a GPU
    they compiled, and refused the CPU tensors). Runners never inherit it (each gets a clean environment), so
    the student's kernels compile for the run's device. Set before anything imports triton."""
    os.environ["TRITON_INTERPRET"] = "1"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["merge"]:
        from attnlab.grade.batch import merge

        return merge.main(argv[1:])
    opts = parse_args(argv)
    interpret_reference_kernels()
    started = time.monotonic()
    if opts.seed is not None:
        host.hide_from_command_line(str(opts.seed))  # /proc/PID/cmdline is world-readable
    shutdown.freeze_at_exit()
    try:
        run, submissions, mine, level = setup(opts)
    except (SpecError, ValueError, OSError) as exc:
        print(f"grade.py: {exc}", file=sys.stderr)
        return 2
    out_dir = opts.out.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    graded = (run.course.assignment.id, run.framework)
    try:  # before anything is written there
        recorded = recorded_run(out_dir / outputs.RUN_FILE, force=opts.force)
        if recorded is not None and not opts.force:
            check_same_grading(out_dir, recorded, *graded)
    except ValueError as exc:
        print(f"grade.py: {exc}", file=sys.stderr)
        return 2
    if opts.shard is not None:  # what this slice holds: merge checks that every one of them has a result
        outputs.atomic_write(out_dir / outputs.SHARD_FILE, json.dumps(
            {"shard": list(opts.shard), "submissions": sorted(s.name for s in mine)}, ensure_ascii=False) + "\n")
    digest = checks_digest(run)
    kept = {s.name: r for s in mine if (r := outputs.read_result(outputs.result_path(out_dir, s.name)))
            and _finished(r, *graded)} if not opts.force else {}
    changed = {s.name for s in mine if s.name in kept and not _unchanged(kept[s.name], s)}
    # graded before the specs, the reference, the grader or the limits changed: graded again, so that one --out
    # never holds a class graded half under each
    stale = {s.name for s in mine if s.name in kept and s.name not in changed and not same_checks(kept[s.name], digest)}
    todo = [s for s in mine if s.name not in kept or s.name in changed or s.name in stale]
    # no more workers than submissions: each leases a runner uid (a /proc and /tmp sweep each; --jobs 200 for two
    # submissions took 5.6 s against 2.6), and --jobs over the 900 uids stopped with a traceback
    jobs = min(opts.jobs, max(1, len(todo)))
    import torch

    from attnlab.grade.judge.judge import JudgeOptions, hidden_paths_for

    torch.set_num_threads(1)  # checks are small: parallelism comes from --jobs, not from intra-op threads
    warm_judge()
    try:
        seed = run_seed(out_dir, opts.seed, *graded, recorded, force=opts.force)
    except (secret.SecretError, ValueError) as exc:
        print(f"grade.py: {exc}", file=sys.stderr)
        return 2
    run, lang, course = run.replace(seed=seed), run.lang, run.course
    judge = JudgeOptions(run=run, hidden_paths=hidden_paths_for(out_dir, submissions), checks_digest=digest,
                         deadline=started + opts.budget if opts.budget is not None else None)
    from attnlab.core import devices

    if not devices.available(run.device):
        print(f"grade.py: there is no {run.device} device here: every exercise will say 'not run on {run.device}'",
              file=sys.stderr)
    shard = f" in shard {opts.shard[0]}/{opts.shard[1]}" if opts.shard else ""
    previous = None
    try:
        previous = _stop_on_sigterm()  # inside: a SIGTERM right after it is handled below
        with host.prepared(level, hidden=list(judge.hidden_paths), workers=jobs,
                           reach=compile_cache.roots(run.adapter)) as uids:
            cpus = worker_cpus(jobs)
            notes = [t("isolation.runner_uids", lang, uids=", ".join(map(str, uids)))] if uids else []
            notes.append(t("isolation.worker_cpus", lang, cpus=", ".join(map(str, cpus))) if cpus else
                         t("isolation.no_worker_cpus", lang))
            done = f"{len(mine) - len(todo)} already done" + (f"; {len(changed)} changed since graded, graded again"
                                                              if changed else "") + \
                (f"; {len(stale)} graded with other specs, reference, grader or limits, graded again" if stale else "")
            print(f"grading {len(todo)} of {len(mine)} submissions{shard} ({done}) "
                  f"in {run.framework}, isolation: {level} ({'; '.join(notes)})", file=sys.stderr)
            judge, filled = with_compile_cache(judge, todo, uids, cpus)
            flags = preflight.lowered(opts, run)
            # the reference first: limits it cannot meet would cost every correct submission. Not for a single
            # submission (Gradescope's, whose setup checks its limits at build): that would double its cost
            if flags and len(todo) > 1:
                if filled is not None and preflight.refusal(flags, filled) is None:
                    # graded under the same limits while compiling everything: with the cache it only gains
                    print(f"the reference, graded to fill the compilation cache, kept every point under "
                          f"{', '.join(flags)}", file=sys.stderr)
                    refused = None
                else:
                    print(f"grading the reference under {', '.join(flags)} first", file=sys.stderr)
                    limits = worker_limits(judge.run.limits, 0, cpus, uids)
                    refused = preflight.refusal(flags, preflight.reference_result(judge, limits))
                if refused:
                    print(f"grade.py: {refused}", file=sys.stderr)
                    return 2
            grade_all(todo, judge=judge, out_dir=out_dir, jobs=jobs, uids=uids, cpus=cpus,
                      gradescope_single=(len(submissions) == 1) if opts.gradescope else None)
    except runs.UidsExhausted as exc:
        print(f"grade.py: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as stopped:
        how = "terminated (SIGTERM)" if isinstance(stopped, Terminated) else "interrupted"
        print(f"grade.py: {how}; finished results are kept in {out_dir}: run the same command to grade the rest",
              file=sys.stderr)
        return 128 + signal.SIGTERM if isinstance(stopped, Terminated) else 130
    finally:
        forkserver.shutdown()
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    outputs.write_summary(out_dir, [e.id for e in course.exercises])
    finished = [r for s in mine if (r := outputs.read_result(outputs.result_path(out_dir, s.name)))]
    outputs.print_table(finished)
    starved = sorted(r["submission"] for r in finished if outputs.overloaded(r))
    if starved:
        print(f"grade.py: the machine was too busy to finish {len(starved)} submission(s) ({', '.join(starved[:5])}"
              f"{', ...' if len(starved) > 5 else ''}): rerun the same command to regrade just those", file=sys.stderr)
    return 0


class Terminated(KeyboardInterrupt):
    """SIGTERM (`docker stop`, a batch system's time limit, `kill`): grade.py stops as Ctrl-C stops it. Every
    runner is killed at once, no grading under way writes a result, and the finished ones are kept; its
    default action instead ended the process without a word."""


def _terminated(signum, frame) -> None:
    raise Terminated()


def _stop_on_sigterm():
    """Make SIGTERM raise Terminated in this (the main) thread; the handler it replaces, for main to put back
    (None where signals cannot be set: main called from another thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.signal(signal.SIGTERM, _terminated)
    return signal.SIG_DFL if previous is None else previous  # None: one set outside Python, put back as default


def _unchanged(result: dict, submission) -> bool:
    """Whether the submission holds what `result` graded (a result of an older grade.py, without a digest,
    is taken as it is; one whose submission could not be read is graded again, as it is cheap)."""
    from attnlab.grade.batch.submissions import fingerprint

    if "source_digest" not in result:
        return True
    return result["source_digest"] is not None and result["source_digest"] == fingerprint(submission)


def _finished(result: dict | None, assignment: str, framework: str) -> bool:
    """A result a rerun keeps: complete, not starved, and of this run's assignment and framework."""
    return (result is not None and not outputs.overloaded(result)
            and (result.get("assignment", assignment), result.get("framework", framework)) == (assignment, framework))
