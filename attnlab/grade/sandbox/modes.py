"""File modes changed for the length of a run, and put back: hiding what runners must not read, and
letting them reach the interpreter, at the levels where the runner's uid is a host uid
(levels.Isolation.host_uid: no mount namespace made as root hides anything from it).

A runner uid owns none of the judge's files and is in none of their groups, so only the "other" permission
bits decide what it can open. `hide(paths)`: other users lose every permission on each path; a directory
they cannot enter hides everything below it, by any name. `reach(paths)`: each directory on the way to a
path that other users cannot enter gets x (enter by name, not list), and the path itself r and x, so that a
Python installed under /root, say, can still be imported from.

Every change is recorded in the state directory (runs.py) with the runs that need it. The last of them to
finish, or the first sweep after they all died (runs.sweep), puts the original mode back, unless someone
changed the mode in between (then it is left alone).
"""

import contextlib
import fcntl
import hashlib
import json
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from attnlab.grade.sandbox import runs


def _hidden(mode: int) -> int:
    return mode & ~0o007


def _entered(mode: int) -> int:
    return mode | 0o001


def _listed(mode: int) -> int:
    return mode | 0o005


@contextlib.contextmanager
def _registry() -> Iterator[Path]:
    """The directory of change records, locked against every other run for the duration."""
    state = runs.state_dir()
    directory = state / "modes"
    directory.mkdir(mode=0o700, exist_ok=True)
    fd = os.open(state / "modes.lock", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield directory
    finally:
        os.close(fd)


def _load(record: Path) -> dict | None:
    try:
        return json.loads(record.read_text())
    except (OSError, ValueError):
        return None


def _save(record: Path, entry: dict) -> None:
    tmp = record.with_suffix(".tmp")
    tmp.write_text(json.dumps(entry))
    os.replace(tmp, record)


def _change(directory: Path, path: Path, new_mode: Callable[[int], int], run_id: str) -> None:
    """Apply new_mode to `path` for `run_id`, or join the record of a run that already did."""
    record = directory / f"{hashlib.sha256(str(path).encode()).hexdigest()[:24]}.json"
    info = os.stat(path)
    entry = _load(record)
    if entry is None or (entry["inode"], entry["device"]) != (info.st_ino, info.st_dev):
        before = stat.S_IMODE(info.st_mode)
        if new_mode(before) == before:
            return  # nothing to change, nothing to restore
        os.chmod(path, new_mode(before))
        entry = {"path": str(path), "inode": info.st_ino, "device": info.st_dev, "before": before,
                 "after": new_mode(before), "runs": []}
    entry["runs"] = sorted({*(r for r in entry["runs"] if runs.alive(r)), run_id})
    _save(record, entry)


def hide(paths: list[Path]) -> None:
    """Until this run ends, no other user may read, list or enter any of `paths` (those that exist)."""
    with _registry() as directory:
        for path in paths:
            if os.path.exists(path):
                _change(directory, Path(path), _hidden, runs.current())


def _enterable(directory: Path, steps) -> None:
    """Each of the directories `steps` that other users cannot enter gets x for them."""
    for step in steps:
        if not os.stat(step).st_mode & 0o001:
            _change(directory, step, _entered, runs.current())


def reach(paths: list[str]) -> None:
    """Until this run ends, any user may enter the directories leading to each of `paths`, and list those."""
    with _registry() as directory:
        for path in map(Path, paths):
            _enterable(directory, reversed(path.parents))
            if os.path.isdir(path):
                _change(directory, path, _listed, runs.current())


def enter(paths: list[str]) -> None:
    """Until this run ends, any user may enter (not list) each of `paths` and the directories leading to it: a
    private temporary directory (TMPDIR=... of mode 0700) holding the runners' scratch directories."""
    with _registry() as directory:
        for path in map(Path, paths):
            _enterable(directory, [step for step in (*reversed(path.parents), path) if os.path.isdir(step)])


def release(run_id: str | None) -> None:
    """`run_id` no longer needs its changes (None: only forget dead runs); a mode no live run needs any more
    is put back as it was."""
    with _registry() as directory:
        for record in directory.glob("*.json"):
            entry = _load(record)
            if entry is None:
                record.unlink(missing_ok=True)
                continue
            entry["runs"] = [r for r in entry["runs"] if r != run_id and runs.alive(r)]
            if entry["runs"]:
                _save(record, entry)
                continue
            with contextlib.suppress(OSError):
                info = os.stat(entry["path"])
                same = (info.st_ino, info.st_dev, stat.S_IMODE(info.st_mode)) == (
                    entry["inode"], entry["device"], entry["after"])
                if same:
                    os.chmod(entry["path"], entry["before"])
            record.unlink(missing_ok=True)
