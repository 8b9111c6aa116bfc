"""In a child forked by the runner forkserver: leave the server behind, confine the process (jail.py), then
hand over to the runner (attnlab.grade.runner), the only code that imports the submission.
"""

import importlib
import os
import random
import resource
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

from attnlab.grade.sandbox import jail


def forget_parent(env: dict[str, str]) -> None:
    """In a runner forked from the forkserver: drop what a fresh interpreter would not have inherited.
    The server's environment is already clean; caches of its file-system view would be stale in the jail."""
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["attnlab.grade.runner.runner"]
    tempfile.tempdir = None
    importlib.invalidate_caches()  # directory listings cached before tmpfs covered reference/ & co.
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # the server's handler woke its loop; we reap ourselves
    random.seed()  # every runner would otherwise share the server's random state
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()


def take_output(output: int) -> None:
    """stdin from /dev/null, stdout and stderr into the judge's capped capture, as in the fallback."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    os.close(null)
    os.close(output)


def argv_area() -> tuple[int, int]:
    """Where this process's command line lies in its memory: what /proc/PID/cmdline shows."""
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return int(fields[45]), int(fields[46])  # arg_start, arg_end: fields 48 and 49 of stat(5)


def set_title(title: str) -> None:
    """Show `title` as this process's command line (ps, /proc/PID/cmdline): a forked runner would otherwise
    show the forkserver's. Rewrites the argv area in place, as setproctitle does."""
    start, end = argv_area()
    data = title.encode()[: end - start - 1]
    with open("/proc/self/mem", "r+b", buffering=0) as mem:
        mem.seek(start)
        mem.write(data + b"\0" * (end - start - len(data)))


def supervise(config: dict, channel: tuple[int, int], report_init: Callable[[int, int], None]) -> int:
    """After enter_namespaces: fork pid 1 of the new pid namespace (it becomes the runner), report it with a
    pidfd, wait for it and return its exit code (negative: the signal that killed it)."""
    alive_r, alive_w = os.pipe()  # the child sees EOF here once this supervisor is gone
    pid = os.fork()
    if pid == 0:
        os.close(alive_w)
        jail.stay_with_parent(alive_r)
        become_runner({**config, "parent_alive_fd": alive_r}, channel)
    os.close(alive_r)
    for fd in channel:
        os.close(fd)
    pidfd = os.pidfd_open(pid)  # we have not reaped it: the pid cannot have been reused
    report_init(pid, pidfd)
    os.close(pidfd)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def become_runner(config: dict, channel: tuple[int, int]) -> NoReturn:
    """Jail this (forked, single-threaded) process, then serve as the runner in it; never returns."""
    try:
        set_title(f"attnlab-runner {config['package']}")
        jail.confine({**config, "fds": list(channel)})
        forget_parent(config["env"])
    except BaseException as exc:  # noqa: BLE001 -- before any untrusted code: never continue half-jailed
        print(f"runner sandbox set-up failed: {exc}", file=sys.stderr, flush=True)
        os._exit(jail.EXIT_JAIL_FAILED)
    from attnlab.grade.runner.runner import run

    code = 0
    try:
        run(3, 4, Path(config["package"]), tuple(config["libraries"]), config["framework"])
    except BaseException:  # noqa: BLE001 -- as an interpreter would: traceback to stderr, status 1
        traceback.print_exc()
        code = 1
    exit_like(code)


def exit_like(code: int) -> NoReturn:
    """Exit with `code`, or die of signal -code, so whoever waits for us reads the runner's fate."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    if code < 0:
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        try:
            signal.signal(-code, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset
        os.kill(os.getpid(), -code)
    os._exit(code if code >= 0 else 128 - code)


