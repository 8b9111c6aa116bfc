"""Which grade.py runs are alive, so that a run can clear away what dead ones left behind.

A run holds an exclusive flock on a lock file of its own, in a state directory only its user can enter,
for as long as its process lives; the kernel drops the lock when the process dies, even by SIGKILL. What a
run leaves in shared places names the run: its scratch directories (a marker file inside), the runner uids
it leased (one lock file per uid, held the same way) and the file modes it changed (modes.py). `sweep()`, at
the start of every grade.py (host.sweep), removes what belongs to runs whose lock is free: their scratch
directories, every process of their runner uids (and those uids' files directly in /tmp, /var/tmp and
/dev/shm); modes.release(None) then puts back their mode changes. Nothing of a live run is touched.
"""

import atexit
import contextlib
import fcntl
import os
import pwd
import re
import secrets
import stat
import tempfile
from pathlib import Path

from attnlab.grade.sandbox import procs
from attnlab.grade.sandbox.scratch import remove_tree

SCRATCH_PREFIX = "attnlab-"  # judge.py's scratch directories: <tmp>/attnlab-<submission>-XXXXXXXX
MARKER = ".attnlab-run"  # inside a scratch directory: the id of the run that made it
RUNNER_UIDS = range(64100, 65000)  # leased to runners as root: no account, no process of anyone else
WORLD_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")
RUN_ID = re.compile(r"run-[0-9]+-[0-9a-f]{8}")
_held: dict[str, int] = {}  # lock name -> the fd holding it, for this process's lifetime


def state_dir() -> Path:
    """<tmp>/attnlab-state-<euid>: made on first use; refused if anyone else could have put things there."""
    path = Path(tempfile.gettempdir()) / f"attnlab-state-{os.geteuid()}"
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid() or info.st_mode & 0o077:
        raise RuntimeError(f"{path} must be a directory of uid {os.geteuid()} with mode 0700; remove it and "
                           "run again")
    return path


def _try_lock(path: Path) -> int | None:
    """An fd holding an exclusive flock on `path` (made if missing), or None while another process holds it.
    Also None where another process removed `path` between our open and our lock (a sweep finding the new
    file unlocked for that instant): a lock on a file no longer named `path` protects nothing."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    if not _named(fd, path):
        os.close(fd)
        return None
    return fd


def _named(fd: int, path: Path) -> bool:
    """Whether `path` is still the file open as `fd`."""
    try:
        named = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    held = os.fstat(fd)
    return (named.st_dev, named.st_ino) == (held.st_dev, held.st_ino)


def current() -> str:
    """This process's run id; its lock is taken on the first call and held until the process exits."""
    for name in _held:
        if RUN_ID.fullmatch(name):
            return name
    for _ in range(100):  # a fresh name is free: None only where a sweep removed the new file meanwhile
        name = f"run-{os.getpid()}-{secrets.token_hex(4)}"
        path = state_dir() / f"{name}.lock"
        fd = _try_lock(path)
        if fd is not None:
            break
    else:
        raise RuntimeError(f"cannot lock a run id in {state_dir()}")
    _held[name] = fd
    atexit.register(path.unlink, missing_ok=True)  # what still names the run is then known to be stale
    return name


def alive(run_id: str) -> bool:
    """Whether the run `run_id` is still running (an unknown or malformed id is not)."""
    if run_id in _held:
        return True
    if not RUN_ID.fullmatch(run_id):
        return False
    path = state_dir() / f"{run_id}.lock"
    if not path.exists():
        return False
    fd = _try_lock(path)
    if fd is None:
        return True
    path.unlink(missing_ok=True)  # its owner is gone for good
    os.close(fd)
    return False


def mark(directory: Path) -> None:
    """Record this run as the owner of `directory` (a scratch directory), for the sweep of a later run. The
    marker appears whole (written aside, then linked in): a concurrent sweep never reads it half-written."""
    run = current()
    aside = directory / f"{MARKER}.{secrets.token_hex(4)}"
    fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(run)
        os.link(aside, directory / MARKER)  # FileExistsError where it was marked already
    finally:
        aside.unlink(missing_ok=True)


def _has_account(uid: int) -> bool:
    try:
        pwd.getpwuid(uid)
    except KeyError:
        return False
    return True


class UidsExhausted(RuntimeError):
    """Fewer runner uids are free than a run asks for (grade.py: a usage error naming --jobs)."""


def lease_uids(count: int) -> list[int]:
    """`count` runner uids for this run alone, held until it exits: no account has them, no live run holds
    them, and no process runs as them (except those a dead run left behind, which are killed here)."""
    leased: list[int] = []
    for uid in RUNNER_UIDS:
        if len(leased) == count:
            return leased
        path = state_dir() / f"uid-{uid}.lock"
        if f"uid-{uid}" in _held or _has_account(uid):
            continue
        existed = path.exists()
        fd = _try_lock(path)
        if fd is None:
            continue
        if not existed and procs.processes_of(uid):  # someone else runs code as this uid
            path.unlink(missing_ok=True)
            os.close(fd)
            continue
        clear_uid(uid, files=True)  # whatever the run that last held it left
        _held[f"uid-{uid}"] = fd
        leased.append(uid)
    if len(leased) < count:
        raise UidsExhausted(f"only {len(leased)} of {count} runner uids in {RUNNER_UIDS.start}-{RUNNER_UIDS.stop - 1} "
                            "are free: lower --jobs")
    return leased


def lease_cpus(cpus: list[int], count: int) -> list[int]:
    """Up to `count` of `cpus` for this run alone, held until it exits (those it holds already come first): the
    ones no other live run holds. Fewer, or none, where other runs hold the rest. A lock per CPU, as for uids;
    a lock file left by a dead run is free again, and is simply taken."""
    mine = [cpu for cpu in cpus if f"cpu-{cpu}" in _held]
    for cpu in cpus:
        if len(mine) >= count:
            break
        if f"cpu-{cpu}" in _held:
            continue
        fd = _try_lock(state_dir() / f"cpu-{cpu}.lock")
        if fd is not None:
            _held[f"cpu-{cpu}"] = fd
            mine.append(cpu)
    return mine[:count]


def holds_uid(uid: int) -> bool:
    return f"uid-{uid}" in _held


def clear_uid(uid: int, *, files: bool) -> None:
    """Kill every process of `uid`; with `files`, also remove what it owns directly in /tmp, /var/tmp and
    /dev/shm (the only places outside its scratch directory it can write to without namespaces or Landlock,
    apart from world-writable directories nested deeper, which are not searched)."""
    procs.kill_uid(uid)
    if not files:
        return
    for directory in WORLD_WRITABLE:
        with contextlib.suppress(OSError):
            for entry in os.scandir(directory):
                with contextlib.suppress(OSError):
                    if entry.stat(follow_symlinks=False).st_uid != uid:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        remove_tree(Path(entry.path))
                    else:
                        os.unlink(entry.path)


def sweep() -> None:
    """Remove what dead runs left here: scratch directories, processes and files of their runner uids (their
    file-mode changes are modes.py's: host.sweep does both)."""
    _sweep_scratch()
    _sweep_uids()
    for lock in state_dir().glob("run-*.lock"):
        alive(lock.name[: -len(".lock")])  # removes the lock files of dead runs


def _sweep_scratch() -> None:
    with contextlib.suppress(OSError):
        for entry in os.scandir(tempfile.gettempdir()):
            if not entry.name.startswith(SCRATCH_PREFIX):
                continue
            with contextlib.suppress(OSError):
                info = entry.stat(follow_symlinks=False)
                if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.geteuid():
                    continue
                owner = (Path(entry.path) / MARKER).read_text().strip()
                if RUN_ID.fullmatch(owner) and not alive(owner):  # only what a run that is gone made
                    remove_tree(Path(entry.path))


def _sweep_uids() -> None:
    for path in state_dir().glob("uid-*.lock"):
        uid = int(path.name[len("uid-"):-len(".lock")]) if path.name[4:-5].isdigit() else None
        if uid is None or f"uid-{uid}" in _held:
            continue
        fd = _try_lock(path)
        if fd is None:
            continue  # a live run holds it
        try:
            clear_uid(uid, files=True)
            path.unlink(missing_ok=True)
        finally:
            os.close(fd)
