"""Starting and killing a runner process at an isolation level (levels.py) this machine allows.

In every level: rlimits (address space, processes, file size, no core, open files), a fresh session, a
clean environment, and a kill that leaves nothing behind (the pid namespace dies with its init; without
one, every process of the runner's session, process group or subreaper tree is killed; where the runner's
uid is a host uid, leased by this run alone (runs.py), every process of that uid too).
Two launchers, one jail (`Limits.launcher`): ForkedRunner, forked by this process's forkserver (namespaces
entered after the fork), or where that cannot run RunnerProcess, a fresh interpreter under `unshare`.
"""

import functools
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from attnlab.core.config import Limits
from attnlab.grade.sandbox import forkserver, landlock, pipes, procs, runs
from attnlab.grade.sandbox.levels import Isolation

if TYPE_CHECKING:
    from attnlab.core.frameworks.base import Adapter

LAUNCHERS = ("auto", "forkserver", "exec")  # auto: the forkserver, or exec where it cannot run
JAIL = Path(__file__).with_name("jail.py")
HARNESS_ROOT = Path(__file__).resolve().parents[3]
INSIDE_SCRATCH = "/tmp/scratch"  # where the runner sees its scratch dir when namespaces are used
ALWAYS_COVERED = ("/tmp", "/var/tmp", "/dev/shm", "/run/user", "/root", "/home")
# Top-level directories a runner may read; every other one is covered with an empty tmpfs, because another
# copy of the solution (a second checkout, an instructor's notes) may sit anywhere: /work, /opt, /srv, ...
# The interpreter, the venv and the harness are re-exposed at their own paths wherever they live.
SYSTEM_DIRS = frozenset({"bin", "dev", "etc", "lib", "lib32", "lib64", "libx32", "proc", "sbin", "sys", "usr"})


def top_level_covers() -> list[str]:
    return sorted(str(p) for p in Path("/").iterdir()
                  if p.is_dir() and not p.is_symlink() and p.name not in SYSTEM_DIRS)
RUNNER_BOOT = ("import sys, json; sys.path[:0] = json.loads(sys.argv[1]); "
               "from attnlab.grade.runner.runner import main; main(sys.argv[2:])")


def validated(limits: Limits) -> Limits:
    """`limits`, if its isolation and launcher name ones this module knows (ValueError otherwise)."""
    if limits.isolation not in ("auto", *(level.value for level in Isolation)):
        raise ValueError(f"Limits.isolation must be 'auto' or one of {[i.value for i in Isolation]}, "
                         f"got {limits.isolation!r}")
    if limits.launcher not in LAUNCHERS:
        raise ValueError(f"Limits.launcher must be one of {LAUNCHERS}, got {limits.launcher!r}")
    return limits


def rlimits(limits: Limits) -> dict[str, int]:
    caps = {"NPROC": limits.max_processes, "FSIZE": limits.max_file_mb << 20, "CORE": 0,
            "NOFILE": limits.max_open_files}
    return caps if limits.memory_mb is None else {"AS": limits.memory_mb << 20, **caps}


def runner_env(home: str, adapter: "Adapter | None" = None, compile_cache: str | None = None) -> dict[str, str]:
    """A clean environment: nothing of the judge's (it may hold the hidden seed) reaches the runner. One
    thread per pool; what the framework's runners need besides (its adapter's runner_env, given the
    compilation cache as the runner sees it; the forkserver, started before the judge knows the adapter,
    applies its framework's itself)."""
    return {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": home, "TMPDIR": home, "LANG": "C.UTF-8",
            "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
            # @torch.compile runs the plain function: grading checks what it computes, and compiling (per
            # shape, with a C++ toolchain whose precompiled header outgrew the runner's file-size cap) failed a
            # correct softmax's first case with "C++ compile error", a hint blaming its maximum beside it
            "TORCH_COMPILE_DISABLE": "1",
            **(adapter.runner_env(compile_cache) if adapter else {})}


def _import_paths() -> list[str]:
    """The judge's own import path (minus the cwd entry), so the runner finds torch and the harness."""
    paths = [str(HARNESS_ROOT)] + [p for p in sys.path if p and os.path.isabs(p)]
    return list(dict.fromkeys(paths))


def _exposed(paths: list[str]) -> list[str]:
    """Directories the runner must be able to read even under a covered /root or /home."""
    python = Path(os.path.realpath(sys.executable)).parent
    wanted = [str(python), sys.prefix, sys.base_prefix, os.path.realpath(sys.base_prefix), *paths]
    return sorted({os.path.realpath(p) for p in wanted if os.path.isdir(p)})


def reachable_paths() -> list[str]:
    """What a runner must be able to read wherever it runs: the interpreter, the venv, the harness."""
    return _exposed(_import_paths())


def landlock_rules(scratch: Path, exposed: list[str]) -> list[tuple[str, int]]:
    """At the landlock level: read the system directories and `exposed`, use existing devices, write scratch."""
    system = [f"/{name}" for name in sorted(SYSTEM_DIRS - {"dev"})]
    return [*((path, landlock.READ) for path in [*system, *exposed]), ("/dev", landlock.DEVICES),
            (str(scratch), landlock.EVERYTHING)]


def cache_as_seen(compile_cache: Path | None, scratch: Path, inside: str) -> tuple[str | None, list[str]]:
    """The compilation cache as the runner sees it, and what must be exposed for it: one inside its scratch
    dir (the judge's trusted runner filling it) is writable there; any other is exposed read-only."""
    if compile_cache is None:
        return None, []
    if compile_cache.is_relative_to(scratch):
        return f"{inside}/{compile_cache.relative_to(scratch)}", []
    return str(compile_cache), [str(compile_cache)]


def jail_config(*, level: Isolation, limits: Limits, adapter: "Adapter", scratch: Path, package: str,
                hidden: list[Path], covered: list[Path], fds: tuple[int, int] = (3, 4),
                libraries: tuple[str, ...] = (), compile_cache: Path | None = None,
                tripwires: tuple[str, ...] = ()) -> dict:
    """What jail.py needs to confine a runner; "argv" only serves the exec launcher. compile_cache: the
    judge's compilation cache for the adapter's framework (attnlab.grade.judge.compile_cache), or None.
    tripwires: the banned ATen operators the forkserver wires before forking (forkserver.Server.prewire);
    jail.py and the exec launcher ignore them (the runner wires what it needs itself)."""
    namespaces = level.namespaces
    inside = INSIDE_SCRATCH if namespaces else str(scratch)
    paths = _import_paths()
    argv = [sys.executable, "-I", "-u", "-B", "-c", RUNNER_BOOT, json.dumps(paths), "--requests", "3",
            "--replies", "4", "--package", f"{inside}/{package}", "--libraries", ",".join(libraries),
            "--framework", adapter.name]
    cache, cache_exposed = cache_as_seen(compile_cache, scratch, inside)
    exposed = sorted({*_exposed(paths), *cache_exposed})
    return {"namespaces": namespaces, "user_namespace": level.user_namespace,
            # the uid changes inside the jail, or (user namespace as root) before the namespace is made
            "drop_uid": level.drops_uid and not level.user_namespace,
            "drop_uid_first": level is Isolation.ROOT_USER_NAMESPACES, "host_uid": level.host_uid,
            "landlock": landlock_rules(scratch, exposed) if level.landlock else None,
            "uid": limits.uid, "gid": limits.gid, "scratch": str(scratch), "inside_scratch": inside,
            "package": f"{inside}/{package}", "libraries": list(libraries), "framework": adapter.name,
            "cover": sorted({*ALWAYS_COVERED, *top_level_covers(), *(str(p) for p in covered)}),
            "expose": exposed, "hidden": [str(p) for p in hidden], "fds": list(fds),
            "rlimits": rlimits(limits), "env": runner_env(inside, adapter, cache), "argv": argv, "cpu": limits.cpu,
            "tripwires": list(tripwires)}


def clear_runner_uid(level: Isolation, limits: Limits) -> None:
    """Where the runner's uid is a host uid, nothing of it may outlive the runner: kill every process of that
    uid (a double-forked daemon left the runner's session), and without Landlock or namespaces, remove what
    it left in the world-writable directories."""
    if level.host_uid:
        runs.clear_uid(limits.uid, files=level is Isolation.ROOT_FILE_MODES)


def runner_server(limits: Limits, framework: str, *, wait: bool = True) -> forkserver.ForkServer:
    """This process's runner forkserver for the framework named `framework` (started on first use; see
    forkserver.server). A name, not an adapter: grade.py starts it before this process imports torch."""
    return forkserver.server(paths=_import_paths(), env=runner_env("/"), boot_timeout_s=limits.boot_timeout_s,
                             framework=framework, wait=wait)


def start_runner(**how) -> "RunnerProcess | ForkedRunner":
    """A started runner (keyword arguments as RunnerProcess): forked by the forkserver unless
    Limits.launcher says "exec", or says "auto" and the forkserver cannot run here."""
    launcher = validated(how["limits"]).launcher
    if how["level"].host_uid and not runs.holds_uid(how["limits"].uid):
        # every process of that uid is killed with the runner: it must belong to this run alone
        raise ValueError(f"isolation {how['level']} needs a runner uid leased by this process "
                         f"(runs.lease_uids), got uid {how['limits'].uid}")
    if launcher != "exec":
        try:
            return ForkedRunner(**how)
        except forkserver.Unavailable as exc:
            if launcher == "forkserver":
                raise
            _say_once(f"{exc}; runners start as fresh interpreters instead (slower)")
    return RunnerProcess(**how)


@functools.cache
def _say_once(message: str) -> None:
    print(message, file=sys.stderr)


class RunnerProcess:
    """One started runner: the request/reply/output pipes (judge ends) and how to kill it completely."""

    def __init__(self, *, level: Isolation, limits: Limits, adapter: "Adapter", scratch: Path, package: str,
                 hidden: list[Path], covered: list[Path], libraries: tuple[str, ...] = (),
                 compile_cache: Path | None = None, tripwires: tuple[str, ...] = ()):
        self.level, self.limits = level, limits
        req_r, self.requests = os.pipe()
        self.replies, rep_w = os.pipe()
        self.output, out_w = os.pipe()
        pipes.widen(out_w)
        config = jail_config(level=level, limits=limits, adapter=adapter, scratch=scratch, package=package,
                             hidden=hidden, covered=covered, fds=(req_r, rep_w), libraries=libraries,
                             compile_cache=compile_cache, tripwires=tripwires)
        command = [sys.executable, "-I", "-S", str(JAIL), json.dumps(config)]
        if level.namespaces:
            flags = ["--mount", "--pid", "--net", "--ipc", "--uts"]
            if level.user_namespace:
                flags = ["--user", "--map-root-user", *flags]
            command = [shutil.which("unshare") or "unshare", *flags, "--fork", "--kill-child", *command]
        if config["drop_uid_first"]:
            command = [shutil.which("setpriv") or "setpriv", f"--reuid={limits.uid}", f"--regid={limits.gid}",
                       "--clear-groups", *command]
        try:
            self.popen = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                                          pass_fds=(req_r, rep_w), start_new_session=True,
                                          env=runner_env("/"), cwd="/")
        finally:
            for fd in (req_r, rep_w, out_w):
                os.close(fd)

    @property
    def runner_pid(self) -> int | None:
        """The process that runs the submission: under `unshare`, the namespace's init (its child)."""
        if not self.level.namespaces:
            return self.popen.pid
        children = [pid for pid, p in procs.snapshot().items() if p.ppid == self.popen.pid]
        return children[0] if children else None

    def exit_code(self, wait_s: float = 0.0) -> int | None:
        """The runner's exit status (negative: killed by that signal), or None while it runs."""
        try:
            return self.popen.wait(timeout=wait_s) if wait_s > 0 else self.popen.poll()
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        """SIGKILL everything the runner started, wait until it is all gone, close the judge's pipe ends."""
        leader = self.popen.pid
        if not self.level.namespaces:
            procs.kill_tree(leader)
        else:
            # the namespace's init is the unshare process's child; its death kills the whole namespace,
            # and its pidfd becomes readable only once every process in it has been reaped
            procs.kill_and_wait([pid for pid, p in procs.snapshot().items() if p.ppid == leader])
            procs.kill_group(leader)
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            raise RuntimeError(f"runner {leader} did not die after SIGKILL") from None
        clear_runner_uid(self.level, self.limits)
        pipes.close_all([self.requests, self.replies])


class ForkedRunner:
    """A runner forked by this process's forkserver: the same pipes, exit_code() and kill() as
    RunnerProcess. `pid` is the supervisor (the runner itself without namespaces), `init_pid` the runner
    as pid 1 of its pid namespace; both come with pidfds, so no kill can hit a reused pid."""

    def __init__(self, *, level: Isolation, limits: Limits, adapter: "Adapter", scratch: Path, package: str,
                 hidden: list[Path], covered: list[Path], libraries: tuple[str, ...] = (),
                 compile_cache: Path | None = None, tripwires: tuple[str, ...] = ()):
        self.level, self.limits = level, limits
        self.pid = self.init_pid = self._pidfd = self._init_pidfd = None
        self._code: int | None = None
        self._gone = False  # the control socket closed without an exit report: the server died
        config = jail_config(level=level, limits=limits, adapter=adapter, scratch=scratch, package=package,
                             hidden=hidden, covered=covered, libraries=libraries, compile_cache=compile_cache,
                             tripwires=tripwires)
        server = runner_server(limits, adapter.name)
        req_r, self.requests = os.pipe()
        self.replies, rep_w = os.pipe()
        self.output, out_w = os.pipe()
        pipes.widen(out_w)
        try:
            self._ctl = server.spawn(config, (req_r, rep_w, out_w))
        except BaseException:
            pipes.close_all([req_r, rep_w, out_w, self.requests, self.replies, self.output])
            raise
        pipes.close_all([req_r, rep_w, out_w])
        try:
            self._await_start(limits.boot_timeout_s, namespaces=config["namespaces"])
        except BaseException:
            self.kill()
            pipes.close_all([self.output])  # no drain thread owns it yet
            raise

    def _await_start(self, timeout_s: float, *, namespaces: bool) -> None:
        deadline = time.monotonic() + timeout_s
        while self.pid is None or (namespaces and self.init_pid is None and self._code is None):
            if not self._read(deadline - time.monotonic()):
                why = "the forkserver died" if self._gone else f"no answer within {timeout_s:g} s"
                raise RuntimeError(f"the runner forkserver did not start a runner: {why}")

    def _read(self, timeout_s: float) -> bool:
        """Take one report from the control socket; False if none came in time (or none ever will)."""
        if self._gone or self._ctl.fileno() < 0 or not pipes.readable(self._ctl, timeout_s):
            return False  # (a closed control socket: kill() already collected what there was to know)
        try:
            header, fds = pipes.receive(self._ctl, 1)
        except OSError:
            header, fds = None, []
        if header is None:
            self._gone = True
            return False
        status, fd = header.get("status"), (fds[0] if fds else None)
        if status == "forked":
            self.pid, self._pidfd = header["pid"], fd
        elif status == "init":
            self.init_pid, self._init_pidfd = header["pid"], fd
        elif status == "exited":
            self._code = header["code"]
        else:
            pipes.close_all(fds)
            raise OSError(f"the runner forkserver could not start a runner: {header.get('message')!r:.300}")
        return True

    @property
    def runner_pid(self) -> int | None:
        """The process that runs the submission (pid 1 of its namespace, or the forked child itself)."""
        return self.init_pid if self.level.namespaces else self.pid

    def exit_code(self, wait_s: float = 0.0) -> int | None:
        """The runner's exit status (negative: killed by that signal), or None while it runs."""
        deadline = time.monotonic() + wait_s
        while self._code is None and self._read(max(0.0, deadline - time.monotonic())):
            pass
        return self._code

    def kill(self) -> None:
        """SIGKILL everything the runner started, wait until it is all gone, close the judge's ends."""
        if not self.level.namespaces and self.pid is not None:
            procs.kill_tree(self.pid)  # the supervisor is the runner, and the subreaper of its orphans
        elif self._init_pidfd is not None:
            procs.kill_pidfds([self._init_pidfd])  # returns once the whole pid namespace is gone
        if self._pidfd is not None and self.exit_code(wait_s=10) is None:
            procs.kill_pidfds([self._pidfd])  # the supervisor outlived its runner, or the server died
        pipes.close_all([fd for fd in (self._pidfd, self._init_pidfd) if fd is not None])
        self._pidfd = self._init_pidfd = None
        clear_runner_uid(self.level, self.limits)
        self._ctl.close()
        pipes.close_all([self.requests, self.replies])
