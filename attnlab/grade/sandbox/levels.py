"""Isolation levels: how strongly a runner is confined, from what this machine allows.

Strongest first (`isolation_level()` says which one applies here; grade.py prints it, README explains it):
- ROOT_NAMESPACES: started as root; new mount, pid, net, IPC and UTS namespaces, hidden paths covered by
  tmpfs, everything but scratch read-only, then a dedicated unprivileged uid with no capabilities.
- USER_NAMESPACES: not root, but unprivileged user namespaces work: the same mounts inside a user
  namespace, all capabilities dropped. The runner keeps the judge's uid on the host.
- RLIMITS_ONLY: neither works: rlimits and a session only; nothing is hidden and the submission runs as
  the judge's user (it can read what the judge can, and signal the judge).
"""

import functools
import os
import shutil
import subprocess
from enum import Enum


class Isolation(str, Enum):
    ROOT_NAMESPACES = "root-dropped+namespaces"
    USER_NAMESPACES = "user-namespaces"
    RLIMITS_ONLY = "rlimits-only"

    def __str__(self) -> str:
        return self.value

    @property
    def namespaces(self) -> bool:
        """The runner gets its own mount, pid and network namespaces (and the hidden-path covers)."""
        return self in (Isolation.ROOT_NAMESPACES, Isolation.USER_NAMESPACES)

    @property
    def user_namespace(self) -> bool:
        return self is Isolation.USER_NAMESPACES

    @property
    def drops_uid(self) -> bool:
        """The runner runs as a dedicated unprivileged uid (so scratch files are chowned to it)."""
        return self is Isolation.ROOT_NAMESPACES


@functools.cache
def _unshare_works(*flags: str) -> bool:
    unshare = shutil.which("unshare")
    if unshare is None:
        return False
    try:
        probe = subprocess.run([unshare, *flags, "--fork", "--kill-child", "--mount-proc", "true"],
                               stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def best_level() -> Isolation:
    if os.geteuid() == 0:
        # as root a user namespace would map the runner to host root: never use one
        return Isolation.ROOT_NAMESPACES if _unshare_works("--mount", "--pid", "--net") else Isolation.RLIMITS_ONLY
    userns = _unshare_works("--user", "--map-root-user", "--mount", "--pid", "--net")
    return Isolation.USER_NAMESPACES if userns else Isolation.RLIMITS_ONLY


def isolation_level(requested: str = "auto") -> Isolation:
    """The level a runner gets here: the best available, or `requested` if that is available."""
    best = best_level()
    if requested == "auto":
        return best
    try:
        wanted = Isolation(requested)
    except ValueError:
        choices = [i.value for i in Isolation]
        raise ValueError(f"isolation must be 'auto' or one of {choices}, got {requested!r}") from None
    if wanted in (best, Isolation.RLIMITS_ONLY):
        return wanted
    raise ValueError(f"isolation {requested!r} is not available here (as uid {os.geteuid()} the best is "
                     f"{best.value!r}; {Isolation.ROOT_NAMESPACES.value!r} needs root, "
                     f"{Isolation.USER_NAMESPACES.value!r} needs a non-root user)")
