"""Landlock (Linux 5.13+): a process, unprivileged, limits which files it and all its children may open.

Used at the root-dropped+landlock level, where no mount namespace can hide anything (Docker's default
seccomp profile refuses namespaces but allows Landlock): the runner may then read, list and execute only
beneath the directories it is given, write only beneath its scratch directory, and use only the device
files that already exist. Standard library only: jail.py imports it when run as a plain script.
"""

import ctypes
import os

# the same syscall numbers on every architecture (they were added after the tables were unified)
SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1, 2, 4, 8
TRUNCATE, IOCTL_DEV = 1 << 14, 1 << 15
# the file-system rights each ABI version knows (versions 6 and 7 add no file-system right)
RIGHTS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 4: (1 << 15) - 1, 5: (1 << 16) - 1}
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # what a rule on a file may grant
READ = EXECUTE | READ_FILE | READ_DIR
DEVICES = READ_FILE | WRITE_FILE | READ_DIR | IOCTL_DEV  # /dev/null, /dev/urandom: no new files there
EVERYTHING = (1 << 16) - 1

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # struct landlock_path_beneath_attr is packed
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _syscall(number: int, *args) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"landlock syscall {number}: {os.strerror(err)}")
    return result


def abi() -> int:
    """The Landlock ABI version this kernel offers; 0 if none (not built in, disabled, or filtered out)."""
    try:
        return _syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    except OSError:
        return 0


def ruleset(rules: list[tuple[str, int]]) -> int:
    """A Landlock rule set fd handling every file-system right this kernel knows and allowing, beneath each
    (path, rights) that exists, those rights. Open it while the paths can still be reached (before the
    uid changes); `enforce` it once no_new_privs is set."""
    version = abi()
    if version < 1:
        raise OSError("Landlock is not available on this kernel")
    handled = RIGHTS_BY_ABI[min(version, 5)]
    attr = ctypes.c_uint64(handled)  # struct landlock_ruleset_attr's first field is enough for every ABI
    fd = _syscall(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(8), ctypes.c_uint32(0))
    for path, rights in rules:
        try:
            parent = os.open(path, os.O_PATH | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        try:
            allowed = rights & handled
            if not os.path.isdir(f"/proc/self/fd/{parent}"):
                allowed &= FILE_RIGHTS
            beneath = _PathBeneath(allowed, parent)
            _syscall(SYS_ADD_RULE, ctypes.c_int(fd), ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(beneath),
                     ctypes.c_uint32(0))
        finally:
            os.close(parent)
    return fd


def enforce(ruleset_fd: int) -> None:
    """From now on this process and its children can open only what the rule set allows."""
    try:
        _syscall(SYS_RESTRICT_SELF, ctypes.c_int(ruleset_fd), ctypes.c_uint32(0))
    finally:
        os.close(ruleset_fd)
