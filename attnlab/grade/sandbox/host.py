"""What a grade.py run arranges on the host around its gradings, and undoes: what dead runs left is cleared
(sweep), the runner uids are leased (one per worker, this run's alone), and where a runner's uid is a
host uid (levels.Isolation.host_uid) the file modes that hide the judge's paths from it and let it reach the
interpreter are set (modes.py) and put back at the end.
"""

import contextlib
import tempfile
from collections.abc import Iterator
from pathlib import Path

from attnlab.grade.sandbox import child, launch, modes, runs
from attnlab.grade.sandbox.levels import Isolation


def hide_from_command_line(secret: str) -> None:
    """Blank `secret` (the value of --seed) in this process's command line, where it is a whole argument or
    follows '=': /proc/PID/cmdline shows it to every user, and a runner with a host uid can read /proc."""
    start, end = child.argv_area()
    word = secret.encode()
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start)
        args = mem.read(end - start).split(b"\0")
        blanked = [b"x" * len(a) if a == word else
                   a[: len(a) - len(word)] + b"x" * len(word) if a.endswith(b"=" + word) else a for a in args]
        mem.seek(start)
        mem.write(b"\0".join(blanked))


def sweep() -> None:
    """Clear what dead runs left: their scratch directories, runner uids and locks (runs.py), and the file
    modes they changed (modes.py, which records its changes in runs.py's state directory)."""
    runs.sweep()
    modes.release(None)


@contextlib.contextmanager
def prepared(level: Isolation, *, hidden: list[Path], workers: int,
             reach: list[Path] = ()) -> Iterator[list[int] | None]:
    """Yields the runner uids of the workers (None where runners keep the judge's uid). `reach`: directories
    runners read besides the interpreter and the harness (a compilation cache)."""
    sweep()
    uids = runs.lease_uids(workers) if level.drops_uid else None
    if not level.host_uid:
        yield uids
        return
    try:
        modes.reach([*launch.reachable_paths(), *(str(p) for p in reach)])
        modes.enter([tempfile.gettempdir()])  # where the scratch dirs are (judge.grade_submission)
        modes.hide(hidden)
        yield uids
    finally:
        modes.release(runs.current())
