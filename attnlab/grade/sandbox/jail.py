"""Setting up the jail from inside the new namespaces, then becoming the runner.

Two callers. A runner forked by the forkserver (the default; runner.become_runner) calls
`enter_namespaces` and `confine` itself: namespaces, mounts, privileges and limits are applied after the
fork, never in the server. The fallback runs this file as a plain script (`python -I -S jail.py
CONFIG_JSON`, standard library only) under `unshare`, or directly (rlimits-only), then execs a fresh
runner interpreter. Either way the runner is pid 1 of a fresh pid namespace and root of a private mount
namespace when namespaces are used, and it
  1. covers /tmp, homes, the scratch root and every hidden path with empty tmpfs (files: /dev/null),
     re-exposing only what the runner needs (the interpreter, the harness) at their usual paths;
  2. binds the runner's scratch dir at a fixed path and remounts every other mount read-only;
  3. mounts a /proc that shows only this pid namespace (no judge environ, cmdline or memory);
  4. drops to the runner uid (as root) and drops every capability (so no tmpfs can be unmounted);
without namespaces, as root, it drops to the runner uid and every capability too, and at the landlock level
restricts what it may open (landlock.py); then, in every mode, sets no_new_privs, moves the channel fds to 3
and 4, applies rlimits and runs the runner.
Any failure exits with EXIT_JAIL_FAILED and a message on stderr (the capture), before untrusted code runs.
"""

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import re
import resource
import select
import signal
import sys

try:  # imported as attnlab.grade.sandbox.jail, or run as a plain script (python -I -S jail.py CONFIG)
    from attnlab.grade.sandbox import landlock
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import landlock

EXIT_JAIL_FAILED = 121
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
# per-mount flags a user namespace may not clear: a read-only remount must repeat them
LOCKED_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": 1024,
                "nodiratime": 2048, "relatime": 1 << 21, "strictatime": 1 << 24}
PR_CAPBSET_DROP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 24, 28, 38, 36
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
PR_SET_PDEATHSIG, PR_SET_DUMPABLE = 1, 4
CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
SECBIT_NOROOT, SECBIT_NOROOT_LOCKED, SECBIT_KEEP_CAPS_LOCKED = 1, 2, 32
RLIMITS = {"AS": resource.RLIMIT_AS, "NPROC": resource.RLIMIT_NPROC, "FSIZE": resource.RLIMIT_FSIZE,
           "CORE": resource.RLIMIT_CORE, "NOFILE": resource.RLIMIT_NOFILE}

libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None
    _check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)),
           f"mount {source or ''} on {target}")


def prctl(option: int, arg: int) -> None:
    _check(libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl({option}, {arg})")


def _under(path: str, parents: list[str]) -> bool:
    return any(path == p or path.startswith(p.rstrip("/") + "/") for p in parents)


def cover(paths: list[str], *, mode: str = "0755") -> list[str]:
    """An empty tmpfs over each existing directory, /dev/null over each existing file; parents first."""
    covered = []
    for path in sorted(paths, key=lambda p: p.count("/")):
        if os.path.isdir(path) and not os.path.islink(path):
            mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, f"mode={mode},size=1m")
            covered.append(path)
        elif os.path.lexists(path) and not os.path.isdir(path):
            mount("/dev/null", path, None, MS_BIND)
            covered.append(path)
    return covered


def expose(kept: dict[str, int], covered: list[str]) -> None:
    """Re-bind each kept directory that a cover hid, at its own path (opened before covering)."""
    for path, fd in sorted(kept.items()):
        if _under(path, covered) and path not in covered:
            os.makedirs(path, exist_ok=True)
            mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)


def mount_points() -> list[tuple[str, int]]:
    """(mount point, flags that must be kept) for every mount of this namespace, parents first."""
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[4])  # \040 is a space
            keep = sum(flag for name, flag in LOCKED_FLAGS.items() if name in fields[5].split(","))
            points.append((point, keep))
    return points


def remount_readonly(skip: set[str], covered: list[str]) -> None:
    for point, keep in mount_points():
        if point in skip:
            continue
        try:
            mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | keep)
        except OSError as exc:
            # under a cover it cannot be reached, so it needs no remount: its path is gone (ENOENT), or
            # leads to a plain directory that `expose` made in the cover (EINVAL: not a mount point)
            if exc.errno == errno.ENOENT or (exc.errno == errno.EINVAL and _under(point, covered)):
                continue
            raise


def setup_mounts(config: dict) -> None:
    mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing done here may propagate to the judge's view
    kept = {p: os.open(p, os.O_PATH | os.O_DIRECTORY) for p in config["expose"] if os.path.isdir(p)}
    scratch_fd = os.open(config["scratch"], os.O_PATH | os.O_DIRECTORY)
    covered = cover(config["cover"])
    expose(kept, covered)
    covered += cover(config["hidden"])
    inside = config["inside_scratch"]
    os.makedirs(inside, exist_ok=True)
    mount(f"/proc/self/fd/{scratch_fd}", inside, None, MS_BIND)
    remount_readonly(skip={inside}, covered=covered)
    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for fd in [*kept.values(), scratch_fd]:
        os.close(fd)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_privileges(config: dict) -> None:
    """Lose root for good: uid/gid (when really root), bounding set, ambient and all capability sets."""
    prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_KEEP_CAPS_LOCKED)
    for cap in range(64):
        dropped = libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) == 0
        if not dropped and ctypes.get_errno() != errno.EINVAL:  # EINVAL: no such capability on this kernel
            _check(-1, f"dropping capability {cap} from the bounding set")
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    if config["drop_uid"]:
        become_uid(config)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    _check(libc.capset(ctypes.byref(header), ctypes.byref((_CapData * 2)())), "capset (dropping all)")


def become_uid(config: dict) -> None:
    """Root becomes the runner uid and gid, with no supplementary groups (and so no capabilities left)."""
    os.setgroups([])
    os.setresgid(config["gid"], config["gid"], config["gid"])
    os.setresuid(config["uid"], config["uid"], config["uid"])


def user_namespace_as_runner_uid(config: dict) -> None:
    """root-dropped+user-namespaces: become the runner uid on the host before making the user namespace, so
    that its root is that uid, not host root. Dumpable again, so this process may write its own uid_map."""
    become_uid(config)
    prctl(PR_SET_DUMPABLE, 1)


def move_channel_fds(fds: list[int]) -> None:
    """The request/reply pipes become fds 3 and 4; every other inherited fd above 2 is closed."""
    high = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in fds]  # a pipe may already sit on 3 or 4
    for target, fd in zip((3, 4), high):
        os.dup2(fd, target, inheritable=True)
        os.set_inheritable(target, True)
    os.closerange(5, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def apply_rlimits(limits: dict[str, int]) -> None:
    for name, value in limits.items():
        hard = resource.getrlimit(RLIMITS[name])[1]
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)  # only ever lower a limit: raising it needs privileges
        resource.setrlimit(RLIMITS[name], (value, value))


def enter_namespaces(config: dict, *, pid: bool = True) -> None:
    """unshare(2) the namespaces `unshare --mount --pid --net --ipc --uts [--user --map-root-user]` would
    give. Must run in a single-threaded process (CLONE_NEWUSER); the new pid namespace applies only to the
    children forked afterwards, so the caller forks once more to get its pid 1. pid=False: every one but
    the pid namespace (a child forked into a new one already: see pid_namespace_for_next_child)."""
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | (CLONE_NEWPID if pid else 0)
    uid, gid = os.geteuid(), os.getegid()
    if config["user_namespace"]:
        flags |= CLONE_NEWUSER
    _check(libc.unshare(ctypes.c_int(flags)), "unshare")
    if config["user_namespace"]:  # map the judge's user to root of the new namespace, as --map-root-user
        for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
            with open(f"/proc/self/{name}", "w") as f:
                f.write(text)


def pid_namespace_for_children(own_pid_ns: int, *, fresh: bool) -> None:
    """As root: fresh=True makes this process's next child pid 1 of a new pid namespace (the process itself
    stays where it is); fresh=False puts later children back in this process's own. `own_pid_ns` is an
    fd of /proc/self/ns/pid. Saves the forkserver a second fork per runner (see forkserver.Server.spawn)."""
    _check(libc.setns(ctypes.c_int(own_pid_ns), ctypes.c_int(CLONE_NEWPID)), "setns (own pid namespace)")
    if fresh:
        _check(libc.unshare(ctypes.c_int(CLONE_NEWPID)), "unshare (pid namespace)")


def stay_with_parent(alive_fd: int) -> None:
    """Die with the parent, as `unshare --kill-child` arranges: SIGKILL on its death, and exit now if it
    already died (`alive_fd` is a pipe whose only writer is the parent: it reads EOF once that is gone).
    Changing the uid clears the parent-death signal, so confine() calls this again after dropping root."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if select.select([alive_fd], [], [], 0)[0]:
        os._exit(EXIT_JAIL_FAILED)


def confine(config: dict) -> None:
    """Every jail step up to running the runner: mounts, session, privileges, fds 3 and 4, cwd, rlimits."""
    if config["namespaces"]:
        setup_mounts(config)
    else:
        prctl(PR_SET_CHILD_SUBREAPER, 1)  # orphans of the submission stay ours, so they can be found
    try:
        os.setsid()  # own session: kill(0, ...) from the submission reaches nobody outside it
    except PermissionError:
        pass  # already a session leader (started with a new session)
    # made while the allowed paths can still be opened, enforced once no_new_privs is set
    rules = landlock.ruleset([tuple(rule) for rule in config["landlock"]]) if config.get("landlock") else None
    if config["namespaces"] or config["drop_uid"]:
        drop_privileges(config)
    if config.get("parent_alive_fd") is not None:
        stay_with_parent(config["parent_alive_fd"])  # a uid change cleared the parent-death signal
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if rules is not None:
        landlock.enforce(rules)
    if config.get("cpu") is not None:
        with contextlib.suppress(OSError):  # speed only (see grade/cli.py allowed_cpus): never fatal
            os.sched_setaffinity(0, {config["cpu"]})
    move_channel_fds(config["fds"])
    os.chdir(config["inside_scratch"])
    apply_rlimits(config["rlimits"])


def main(argv: list[str]) -> None:
    config = json.loads(argv[0])
    try:
        confine(config)
        os.execve(config["argv"][0], config["argv"], config["env"])
    # before any untrusted code runs: report and stop, never continue half-jailed
    except Exception as exc:  # noqa: BLE001
        print(f"runner sandbox set-up failed: {exc}", file=sys.stderr, flush=True)
        os._exit(EXIT_JAIL_FAILED)


if __name__ == "__main__":
    main(sys.argv[1:])
