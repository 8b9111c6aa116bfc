"""Machines grade.py must work on, simulated on this one for real: a test runs grade.py under a command
prefix that takes away what such a machine does not have, and checks the isolation level it reaches.

- here: this machine as it is.
- no-sys-admin: root without CAP_SYS_ADMIN (capsh --drop=cap_sys_admin: the capability is gone from the
  bounding set, so nothing started below can have it), as in a container given Docker's default
  capabilities but no seccomp filter.
- docker: a default Docker container: no CAP_SYS_ADMIN, and a seccomp filter that refuses namespaces and
  mounts as Docker's default profile does (tools/docker_default.py); Landlock stays allowed, as there.
- docker-no-landlock: the same on a kernel without Landlock (the filter refuses it too).
- no-setuid: root that can neither make namespaces nor become another uid (CAP_SYS_ADMIN, CAP_SETUID and
  CAP_SETGID dropped): student code would run as root, so grade.py must refuse.

Each needs root and its tool (capsh from libcap2-bin; for the seccomp filter the system python3 with
libseccomp's bindings, Debian's python3-seccomp); `prefix` skips the test, saying which is missing, only
where they are. `.ci/run` installs both when run as root.
"""

import functools
import os
import shutil
import subprocess
from pathlib import Path

import pytest

TOOLS = Path(__file__).parent / "tools"
SYSTEM_PYTHON = "/usr/bin/python3"
NAMES = ("here", "no-sys-admin", "docker", "docker-no-landlock", "no-setuid")


def capsh_prefix(*capabilities: str) -> list[str]:
    return [shutil.which("capsh") or "capsh", f"--drop={','.join(capabilities)}", "--", "-c", 'exec "$0" "$@"']


def docker_prefix(*, landlock: bool) -> list[str]:
    return [SYSTEM_PYTHON, str(TOOLS / "docker_default.py"), *([] if landlock else ["--no-landlock"]), "--"]


@functools.cache
def _seccomp_bindings() -> bool:
    if not Path(SYSTEM_PYTHON).exists():
        return False
    return subprocess.run([SYSTEM_PYTHON, "-c", "import seccomp"], capture_output=True, check=False).returncode == 0


def without(*capabilities: str, simulating: str, needs: str = "capsh (libcap2-bin)") -> list[str]:
    """The command prefix of a root process without `capabilities`; skips the calling test where capsh cannot
    be used here (`simulating` and what it `needs`: the reason)."""
    if os.environ.get("ATTNLAB_SKIP_SYSTEM") == "1":
        pytest.skip(f"ATTNLAB_SKIP_SYSTEM=1: simulating {simulating} needs {needs}")
    if os.geteuid() != 0:
        pytest.skip(f"simulating {simulating} needs root (it takes capabilities away from a root process)")
    if shutil.which("capsh") is None:
        pytest.skip(f"simulating {simulating} needs capsh: apt-get install libcap2-bin")
    return capsh_prefix(*capabilities)


def prefix(name: str) -> list[str]:
    """The command prefix that simulates `name`; skips the calling test where that cannot be done here."""
    if name == "here":
        return []
    if name == "no-sys-admin":
        return without("cap_sys_admin", simulating=name)
    if name == "no-setuid":
        return without("cap_sys_admin", "cap_setuid", "cap_setgid", simulating=name)
    without(simulating=name, needs="capsh (libcap2-bin) and python3-seccomp")  # the same conditions, then its own
    if not _seccomp_bindings():
        pytest.skip(f"simulating {name} needs libseccomp's Python bindings for {SYSTEM_PYTHON}: "
                    "apt-get install python3-seccomp")
    return docker_prefix(landlock=name == "docker")


@functools.cache
def _kernel_allows_user_namespaces_for_others() -> bool:
    """Whether an unprivileged uid may make a user namespace here (a kernel setting, not ours)."""
    setpriv, unshare = shutil.which("setpriv"), shutil.which("unshare")
    if os.geteuid() != 0 or not setpriv or not unshare:
        return False
    probe = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", unshare, "--user", "--map-root-user",
             "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


def _kernel_has_landlock() -> bool:
    from attnlab.grade.sandbox import landlock

    return landlock.abi() >= 1


def expected_level(name: str) -> str:
    """The isolation level grade.py must reach under simulation `name`, from what the kernel offers."""
    if name == "here":
        return "root-dropped+namespaces" if os.geteuid() == 0 else "user-namespaces"
    if name == "no-setuid":
        return "rlimits-only"
    if name == "no-sys-admin" and _kernel_allows_user_namespaces_for_others():
        return "root-dropped+user-namespaces"
    if name in ("no-sys-admin", "docker") and _kernel_has_landlock():
        return "root-dropped+landlock"
    return "root-dropped+file-modes"
