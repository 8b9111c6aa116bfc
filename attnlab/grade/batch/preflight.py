"""Limits lowered below the framework's defaults are tried on the reference before any submission is graded.

A runner's address-space cap counts everything the runner maps, the framework's libraries included: torch
alone maps about 600 MB before any student code runs. With `--memory 512`, the torch reference scored 87.6 in
one run and 97.6 in another (2026-11-27), and its feedback blamed the code ("the runner exited with status 1").
Every correct submission would have lost points like it. A `--timeout` or `--import-timeout` that the
reference cannot meet would do the same. So when a run lowers one of these, grade.py first grades the
framework's reference under the run's limits. If the reference loses any point, grade.py stops before the
class and names the limit. Only for more than one submission: for one, this would double the cost, and
Gradescope's setup.sh grades the reference under its limits when the image is built (self_test.py).
"""

import argparse
import dataclasses

from attnlab.core import paths
from attnlab.core.config import Limits, Run


def lowered(opts: argparse.Namespace, run: Run) -> list[str]:
    """The options, as given, that set a limit below the framework's default on the run's device."""
    default = Limits.for_adapter(run.adapter, run.device)
    found = []
    if opts.memory is not None and (default.memory_mb is None or opts.memory < default.memory_mb):
        found.append(f"--memory {opts.memory}")
    if opts.timeout is not None and opts.timeout < default.timeout_s:
        found.append(f"--timeout {opts.timeout:g}")
    if opts.import_timeout is not None and opts.import_timeout < default.import_timeout_s:
        found.append(f"--import-timeout {opts.import_timeout:g}")
    return found


def reference_result(judge, limits: Limits):
    """The framework's reference graded under `limits` (one worker's), with no run budget: a SubmissionResult."""
    from attnlab.grade.batch.submissions import Submission
    from attnlab.grade.judge.judge import grade_submission

    trial = dataclasses.replace(judge, run=judge.run.replace(limits=limits), deadline=None)
    return grade_submission(Submission(name="reference", source=paths.reference_dir(judge.run.adapter)), trial)


def refusal(flags: list[str], result) -> str | None:
    """Why the class must not be graded under `flags`, or None when the reference kept every point, or lost
    points only where the machine was too busy to finish it (Status.OVERLOADED: the limits were not what
    failed, and a student's exercise starved alike is graded again, never marked down)."""
    from attnlab.grade.judge.judge import starved

    lost = [f"{e.id}: {e.status} ({e.score:g} of {e.max_score:g})" for e in result.exercises
            if e.score < e.max_score and not starved(e)]
    if not lost:
        return None
    return (f"under {', '.join(flags)} the reference scores {result.score:g} of {result.max_score:g} "
            f"({'; '.join(lost)}), so correct submissions would lose points too. Nothing was graded: raise the "
            f"limit, or leave it at the framework's default.")
