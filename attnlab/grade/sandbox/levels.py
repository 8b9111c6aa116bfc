"""Isolation levels: how strongly a runner is confined, from what this machine allows.

Strongest first (`isolation_level()` says which one applies here; grade.py prints it, README explains it):
- ROOT_NAMESPACES: started as root with CAP_SYS_ADMIN; new mount, pid, net, IPC and UTS namespaces, hidden
  paths covered by tmpfs, everything but scratch read-only, then a dedicated unprivileged uid with no
  capabilities.
- ROOT_USER_NAMESPACES: root without CAP_SYS_ADMIN (Docker's default capabilities) where unprivileged user
  namespaces work: the runner first becomes its dedicated uid on the host, then enters a user namespace of
  its own with the same mounts as above; what it must not read is also unreadable to that uid by file
  mode (modes.py).
- ROOT_LANDLOCK: root where no namespace can be made (Docker's default seccomp profile): the dedicated uid,
  no capabilities, no_new_privs, hiding by file mode, and a Landlock rule set that lets it read only the
  system directories, the interpreter and the harness, and write only its scratch directory.
- ROOT_FILE_MODES: the same without Landlock (a kernel without it): the runner can read and write whatever
  other users can (world-readable files elsewhere, /tmp).
- USER_NAMESPACES: not root, but unprivileged user namespaces work: the same mounts inside a user
  namespace, all capabilities dropped. The runner keeps the judge's uid on the host.
- RLIMITS_ONLY: none of these: rlimits and a session only; nothing is hidden and the submission runs as
  the judge's user (it can read what the judge can, and signal the judge). grade.py refuses it as root.
"""

import functools
import os
import shutil
import subprocess
from enum import Enum

from attnlab.grade.sandbox import landlock

PROBE_UID = 65534  # the uid the user-namespace probe drops to (it owns nothing and starts nothing)
# what root needs to run student code as another uid: change uid and gid, drop capabilities (SETPCAP),
# own the scratch copy for it (CHOWN), hide and restore file modes (FOWNER), kill its processes (KILL)
DROP_CAPABILITIES = {"CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_FOWNER": 3, "CAP_KILL": 5, "CAP_SETGID": 6,
                     "CAP_SETUID": 7, "CAP_SETPCAP": 8}


class Isolation(str, Enum):
    ROOT_NAMESPACES = "root-dropped+namespaces"
    ROOT_USER_NAMESPACES = "root-dropped+user-namespaces"
    ROOT_LANDLOCK = "root-dropped+landlock"
    ROOT_FILE_MODES = "root-dropped+file-modes"
    USER_NAMESPACES = "user-namespaces"
    RLIMITS_ONLY = "rlimits-only"

    def __str__(self) -> str:
        return self.value

    @property
    def namespaces(self) -> bool:
        """The runner gets its own mount, pid and network namespaces (and the hidden-path covers)."""
        return self in (Isolation.ROOT_NAMESPACES, Isolation.ROOT_USER_NAMESPACES, Isolation.USER_NAMESPACES)

    @property
    def user_namespace(self) -> bool:
        return self in (Isolation.ROOT_USER_NAMESPACES, Isolation.USER_NAMESPACES)

    @property
    def drops_uid(self) -> bool:
        """The runner runs as a dedicated unprivileged uid (so scratch files are chowned to it)."""
        return self.value.startswith("root-dropped")

    @property
    def host_uid(self) -> bool:
        """The runner's uid is a real uid on the host, not confined by a namespace made as root: what it must
        not read is hidden by file mode, and every process of that uid is killed with the runner."""
        return self in (Isolation.ROOT_USER_NAMESPACES, Isolation.ROOT_LANDLOCK, Isolation.ROOT_FILE_MODES)

    @property
    def landlock(self) -> bool:
        return self is Isolation.ROOT_LANDLOCK


@functools.cache
def _unshare_works(*flags: str, as_uid: int | None = None) -> bool:
    unshare, setpriv = shutil.which("unshare"), shutil.which("setpriv")
    if unshare is None or (as_uid is not None and setpriv is None):
        return False
    command = [unshare, *flags, "--fork", "--kill-child", "--mount-proc", "true"]
    if as_uid is not None:
        command = [setpriv, f"--reuid={as_uid}", f"--regid={as_uid}", "--clear-groups", *command]
    try:
        probe = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


def missing_capabilities() -> list[str]:
    """The capabilities root lacks here to run student code as a dedicated uid ([] when it has them all)."""
    try:
        with open("/proc/self/status") as f:
            effective = int(next(line for line in f if line.startswith("CapEff:")).split()[1], 16)
    except (OSError, StopIteration, ValueError, IndexError):
        return list(DROP_CAPABILITIES)
    return [name for name, bit in DROP_CAPABILITIES.items() if not effective >> bit & 1]


@functools.cache
def available() -> tuple[Isolation, ...]:
    """Every level this process can give a runner, strongest first (RLIMITS_ONLY is always among them)."""
    if os.geteuid() != 0:
        # an ordinary user: user namespaces or nothing (its uid is the only one it can run code as)
        userns = _unshare_works("--user", "--map-root-user", "--mount", "--pid", "--net")
        return (Isolation.USER_NAMESPACES, Isolation.RLIMITS_ONLY) if userns else (Isolation.RLIMITS_ONLY,)
    levels = []
    if _unshare_works("--mount", "--pid", "--net"):
        levels.append(Isolation.ROOT_NAMESPACES)
    if not missing_capabilities():
        # a user namespace made by root would map the runner to host root: it is made by the runner uid
        if _unshare_works("--user", "--map-root-user", "--mount", "--pid", "--net", as_uid=PROBE_UID):
            levels.append(Isolation.ROOT_USER_NAMESPACES)
        if landlock.abi() >= 1:
            levels.append(Isolation.ROOT_LANDLOCK)
        levels.append(Isolation.ROOT_FILE_MODES)
    return (*levels, Isolation.RLIMITS_ONLY)


def best_level() -> Isolation:
    return available()[0]


def isolation_level(requested: str = "auto") -> Isolation:
    """The level a runner gets here: the best available, or `requested` if that is available."""
    if requested == "auto":
        return best_level()
    try:
        wanted = Isolation(requested)
    except ValueError:
        choices = [i.value for i in Isolation]
        raise ValueError(f"isolation must be 'auto' or one of {choices}, got {requested!r}") from None
    if wanted in available():
        return wanted
    raise ValueError(f"isolation {requested!r} is not available here (as uid {os.geteuid()} this machine "
                     f"offers {[level.value for level in available()]})")
