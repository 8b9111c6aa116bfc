"""Grading a batch: worker slots (each its own runner uid and CPU), a progress display, results written as
each submission finishes, and every runner killed at once on Ctrl-C.
"""

import contextlib
import dataclasses
import os
import queue
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from attnlab.core import internal
from attnlab.core.config import Limits
from attnlab.core.results import score_text
from attnlab.grade.batch import outputs
from attnlab.grade.batch.submissions import Submission
from attnlab.grade.sandbox import forkserver, runs


def worker_limits(base: Limits, slot: int, cpus: list[int], uids: list[int] | None = None) -> Limits:
    """Each parallel worker runs as its own uid (`uids`: leased for this run, sandbox.runs): RLIMIT_NPROC
    counts per uid, so one fork bomb must not starve the other runners of processes. Worker i and its runners
    run on the i-th of `cpus` (worker_cpus), and where there is none, wherever the kernel puts them."""
    uid = uids[slot] if uids else base.uid if slot == 0 else 64000 + slot
    return dataclasses.replace(base, uid=uid, gid=uid, cpu=cpus[slot] if slot < len(cpus) else None)


def worker_cpus(jobs: int) -> list[int]:
    """The CPUs this run pins its workers to, one each: CPUs this process may run on that no other live
    grade.py run of this user holds (leased until this one exits: sandbox.runs.lease_cpus). A judge and its
    runner take turns (request, reply): on one CPU each reply wakes its reader there rather than on another
    CPU, which costs a cross-CPU wake-up per call on a VM (benchmarks/README.md). Leased, not simply the
    first ones: two runs side by side (Slurm shards on a node that does not bind CPUs, two assignments at
    once) would otherwise both pin their first worker to the first CPU and leave the others idle. A worker
    without a CPU of its own is not pinned. [] where affinity cannot be read."""
    if not hasattr(os, "sched_getaffinity"):
        return []
    return runs.lease_cpus(sorted(os.sched_getaffinity(0)), jobs)


class Progress:
    """A progress bar with ETA on a terminal; elsewhere (logs, CI) one line per graded submission."""

    def __init__(self, total: int):
        self._lock = threading.Lock()
        self._bar = None
        if sys.stderr.isatty():
            from tqdm import tqdm

            self._bar = tqdm(total=total, unit="sub", file=sys.stderr, dynamic_ncols=True)

    def done(self, name: str, line: str) -> None:
        with self._lock:
            if self._bar is None:
                print(f"  {line}", file=sys.stderr)
            else:
                self._bar.set_postfix_str(name[:30], refresh=False)
                self._bar.update()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


def partial_writer(sub: Submission, judge, out_dir: Path):
    """With Gradescope output: after each exercise, DIR/gradescope/<name>.partial.json holds the results so
    far and the exercises not reached yet (what run_autograder keeps if grade.py is killed at its budget)."""
    from attnlab import __version__
    from attnlab.core.results import SubmissionResult
    from attnlab.grade.judge.judge import not_reached

    course = judge.run.course

    def write(done: list) -> None:
        rest = [not_reached(e, judge.run.lang) for e in course.exercises[len(done):]]
        exercises = (*done, *rest)
        result = SubmissionResult(submission=sub.name, score=round(sum(e.score for e in exercises), 4),
                                  max_score=course.total_points, exercises=exercises, started_at="",
                                  duration_s=0.0, harness_version=__version__,
                                  assignment=course.assignment_id,
                                  framework=judge.run.framework)
        outputs.write_gradescope(out_dir / "gradescope" / f"{sub.name}.partial.json", result)

    write([])
    return write


def with_compile_cache(judge, todo: list[Submission], uids: list[int] | None, cpus: list[int] | None = None):
    """The judge's options with its framework's compilation cache (grade.judge.compile_cache), filled first
    by grading the reference in worker 0's slot where there is none yet for this assignment and seed and more
    than one submission is to be graded (filling costs about one submission); and that grading's result of
    the reference (under worker 0's limits), or None where none was filled."""
    from attnlab.grade.judge.judge import with_compile_cache as cached

    limits = worker_limits(judge.run.limits, 0, worker_cpus(1) if cpus is None else cpus, uids)
    cached_opts, reference = cached(dataclasses.replace(judge, run=judge.run.replace(limits=limits)),
                                    fill=len(todo) > 1, say=lambda line: print(line, file=sys.stderr))
    return dataclasses.replace(judge, compile_cache=cached_opts.compile_cache), reference


def grade_all(todo: list[Submission], *, judge, out_dir: Path, jobs: int,
              gradescope_single: bool | None, uids: list[int] | None = None,
              cpus: list[int] | None = None) -> None:
    """Grade `todo` with `jobs` at once, each worker slot under its own runner uid (`uids[slot]` where
    given); results are written as each submission finishes. judge: JudgeOptions. gradescope_single: None
    (no Gradescope files), or whether to also write DIR/results.json (a single submission)."""
    from attnlab.grade.judge.judge import grade_submission  # imports torch: after the forkserver started

    slots: queue.SimpleQueue[int] = queue.SimpleQueue()
    for slot in range(jobs):
        slots.put(slot)
    progress = Progress(len(todo))
    cpus = worker_cpus(jobs) if cpus is None else cpus  # read before any worker thread pins itself

    def one(sub: Submission) -> None:
        slot = slots.get()
        try:
            limits = worker_limits(judge.run.limits, slot, cpus, uids)
            if limits.cpu is not None:
                with contextlib.suppress(OSError):  # this thread only: the worker's judge
                    os.sched_setaffinity(0, {limits.cpu})
            partial = partial_writer(sub, judge, out_dir) if gradescope_single is not None else None
            result = grade_submission(sub, dataclasses.replace(judge, run=judge.run.replace(limits=limits)), partial)
        finally:
            slots.put(slot)
        internal.report(sub.name, result.exercises)  # the judge's own faults, with tracebacks, for the instructor
        outputs.write_result(out_dir, result)
        if gradescope_single is not None:
            outputs.write_gradescope(out_dir / "gradescope" / f"{sub.name}.json", result)
            if gradescope_single:
                outputs.write_gradescope(out_dir / outputs.GRADESCOPE_FILE, result)
            (out_dir / "gradescope" / f"{sub.name}.partial.json").unlink(missing_ok=True)  # the final one is here
        score = "not graded" if result.not_graded else score_text(result.score, result.max_score)
        progress.done(sub.name, f"{sub.name}: {score} ({result.duration_s:.1f} s)")

    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        list(pool.map(one, todo))
    except BaseException:  # Ctrl-C: kill every runner, so gradings under way fail now (and write nothing)
        forkserver.shutdown(final=True)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        pool.shutdown()
        progress.close()
