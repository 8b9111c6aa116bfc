"""The runner forkserver: one process imports torch, numpy and the harness once and forks a runner per
request, instead of each runner paying `import torch` and the harness's imports. It never reads
student data or runs student code, and runs no torch op (no intra-op thread pool exists for fork to
break); it only receives jail configs (paths, limits) and fds.

One server per judge process, started on first use (`server()`), stopped at exit. Judge and server talk
over a unix SOCK_SEQPACKET socketpair: one packet is one channel.py frame (JSON, never pickle), fds travel
beside it (SCM_RIGHTS). A spawn request {"op": "spawn", "config": ...} carries four fds: the server's end
of a fresh control socketpair, and the runner's request, reply and output pipe ends. On that control socket:
  server  -> {"status": "forked", "pid": P} + a pidfd of P   (or {"status": "error", "message": ...})
  P       -> {"status": "init", "pid": I} + a pidfd of I     (namespace levels only)
  server  -> {"status": "exited", "code": C}                 P was reaped (C as Popen.returncode)
With user namespaces, P, the supervisor, leads a new session and unshares the namespaces (a forked child
is single-threaded, as CLONE_NEWUSER requires), then forks I, pid 1 of the new pid namespace, which jails
itself and becomes the runner (runner.py); P waits and exits as I did, like `unshare --fork --kill-child`.
As root the server makes the pid namespace itself before forking, so P is I: pid 1 from the start, it
unshares the other namespaces and becomes the runner, and the server sends "init" too (one fork and one
big process's teardown per runner instead of two). Without namespaces P is the runner. The
judge kills I by its pidfd: the whole namespace is gone before that pidfd reports.
"""

import atexit
import contextlib
import gc
import importlib
import json
import os
import resource
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import NoReturn

from attnlab.core import frameworks
from attnlab.grade.sandbox import jail, pipes, procs

WARM_MODULES = ("torch", "numpy", "numpy.random", "jaxtyping", "beartype", "beartype.door",
                "attnlab.grade.runner.runner", "attnlab.grade.sandbox.child", "attnlab.core.typecheck",
                "attnlab.core.impl")
NEVER_IMPORTED = ("reference",)  # the solution must not be in memory every runner inherits
BOOT = ("import sys, json; sys.path[:0] = json.loads(sys.argv[1]); "
        "from attnlab.grade.sandbox.forkserver import serve_forever; serve_forever(int(sys.argv[2]), sys.argv[3])")


class Stopping(BaseException):
    """grade.py is stopping (Ctrl-C): no runner starts any more. Not an Exception, so that no check, exercise or
    submission mistakes it for its own failure and writes a result: gradings under way end with nothing."""


class Unavailable(RuntimeError):
    """The forkserver cannot run here (runners can still start as fresh interpreters: sandbox.py)."""


class Server:
    """The server loop: spawn requests in, forks out, and every child reaped and reported."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.children: dict[int, socket.socket] = {}  # supervisor (or runner) pid -> its control socket
        self.alive: dict[int, int] = {}  # runner pid -> the pipe end whose closing tells it we are gone
        self.host_uids: set[int] = set()  # runner uids that are host uids: every process of them dies with us
        self.wake_r, self.wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        self.no_prewiring = False  # set after a failure to wire tripwires (prewire)
        # as root, the server itself puts each runner in a new pid namespace: no supervisor fork needed
        self.own_pid_ns: int | None = None
        if os.geteuid() == 0:
            with contextlib.suppress(OSError):  # no pid namespaces here: supervisors, as for other users
                self.own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY)

    def loop(self) -> None:
        signal.set_wakeup_fd(self.wake_w)  # SIGCHLD wakes the poll below
        signal.signal(signal.SIGCHLD, lambda *_: None)
        poller = select.poll()
        for fd in (self.sock.fileno(), self.wake_r):
            poller.register(fd, select.POLLIN)
        try:
            while True:
                for fd, _event in poller.poll(1000):
                    if fd == self.wake_r:  # signal numbers: what matters is the reap below
                        with contextlib.suppress(BlockingIOError):
                            os.read(self.wake_r, 4096)
                    elif not self.handle_request():
                        return  # the judge closed its end (or exited)
                self.reap()
        finally:
            self.stop_children()

    def handle_request(self) -> bool:
        """Serve one spawn request; False once the judge has closed its end."""
        try:
            header, fds = pipes.receive(self.sock, 4)
            if header is None:
                return False
            if header.get("op") != "spawn" or not isinstance(header.get("config"), dict) or len(fds) != 4:
                pipes.close_all(fds)
                raise OSError(f"not a spawn request with 4 fds: {header!r:.200}")
        except OSError as exc:  # the judge sent it, so this is a bug: say so, and keep serving
            print(f"forkserver: dropped a request: {exc}", file=sys.stderr, flush=True)
            return True
        self.spawn(header["config"], socket.socket(fileno=fds[0]), tuple(fds[1:3]), fds[3])
        return True

    def spawn(self, config: dict, ctl: socket.socket, channel: tuple[int, int], output: int) -> None:
        self.prewire(config.get("tripwires"))
        if config.get("host_uid"):
            self.host_uids.add(config["uid"])
        direct = self.direct(config)
        alive_r, alive_w = os.pipe() if direct else (None, None)
        try:
            pid = os.fork()
        except OSError as exc:
            pid = None
            pipes.close_all([*channel, output, *([alive_r, alive_w] if direct else [])])
            with ctl:
                _send_quietly(ctl, {"status": "error", "message": f"the forkserver could not fork: {exc}"})
        if pid == 0:
            if direct:
                os.close(alive_w)
                self.become_runner_directly(config, ctl, channel, output, alive_r)
            self.become_supervisor(config, ctl, channel, output)
        if direct:  # later children: in our own pid namespace again
            jail.pid_namespace_for_children(self.own_pid_ns, fresh=False)
        if pid is None:
            return
        pipes.close_all([*channel, output])
        reports = [("forked", os.pidfd_open(pid))]  # before any reap: the pid cannot have been reused yet
        if direct:
            os.close(alive_r)
            self.alive[pid] = alive_w
            reports.append(("init", os.pidfd_open(pid)))  # the runner is the namespace's pid 1 itself
        for status, pidfd in reports:
            _send_quietly(ctl, {"status": status, "pid": pid}, [pidfd])
            os.close(pidfd)
        self.children[pid] = ctl

    def prewire(self, packets) -> None:
        """Tripwires on the banned ATen operators the judge names (tripwires.install), before forking: runners
        start with them instead of each wiring them at its first guarded call (3.6 ms for the attention
        assignment's ten). Registrations only, no operator runs. Speed only: after a failure the runners
        wire what they need themselves, as where torch has no tripwires (before 2.9)."""
        if self.no_prewiring or not isinstance(packets, list) or not all(isinstance(p, str) for p in packets):
            return
        from attnlab.core import tripwires  # imports torch: the judge imports this module before it does

        if not tripwires.AVAILABLE:
            return
        try:
            tripwires.install(packets)
        except Exception as exc:  # noqa: BLE001 -- speed only
            self.no_prewiring = True
            print(f"forkserver: could not wire tripwires on {packets}: {exc}", file=sys.stderr, flush=True)

    def direct(self, config: dict) -> bool:
        """Whether the next child can be the runner itself, as pid 1 of a pid namespace made here (as root;
        a user namespace must be entered before its pid namespace is made, so that needs a supervisor)."""
        if self.own_pid_ns is None or not config.get("namespaces") or config.get("user_namespace"):
            return False
        try:
            jail.pid_namespace_for_children(self.own_pid_ns, fresh=True)
        except OSError:
            self.own_pid_ns = None  # not allowed here after all: supervisors from now on
            return False
        return True

    def reap(self) -> None:
        """Reap every finished child (and every orphan: this process is a subreaper); report ours."""
        with contextlib.suppress(ChildProcessError):  # no children left at all
            while (reaped := os.waitpid(-1, os.WNOHANG))[0]:
                ctl = self.children.pop(reaped[0], None)
                with contextlib.suppress(KeyError, OSError):
                    os.close(self.alive.pop(reaped[0]))
                if ctl is not None:
                    _send_quietly(ctl, {"status": "exited", "code": os.waitstatus_to_exitcode(reaped[1])})
                    ctl.close()

    def stop_children(self) -> None:
        """The judge is gone: nobody will kill these runners any more, so do it now. Every child dies, and
        every orphan that comes back here (this process is a subreaper: a runner's daemons do, once the
        runner is dead), until none is left; then every process of the runner uids that are host uids."""
        end = time.monotonic() + 5
        while time.monotonic() < end:
            children = [p.pid for p in procs.snapshot().values() if p.ppid == os.getpid()]
            if not children:
                break
            for pid in children:
                for kill in (os.killpg, os.kill):  # a supervisor leads its session and group
                    with contextlib.suppress(OSError):
                        kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):  # raised once no child is left
                while os.waitpid(-1, os.WNOHANG)[0]:
                    pass
            time.sleep(0.01)
        for uid in self.host_uids:
            with contextlib.suppress(RuntimeError):
                procs.kill_uid(uid, timeout_s=5)

    def become_supervisor(self, config: dict, ctl: socket.socket, channel: tuple[int, int],
                          output: int) -> NoReturn:
        """In the forked child: leave the server behind, then supervise the runner (or be it)."""
        from attnlab.grade.sandbox import child  # imported (with torch) at start-up: see WARM_MODULES

        code = jail.EXIT_JAIL_FAILED
        try:
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            ctl_fd = ctl.detach()
            self.forget(keep={ctl_fd, *channel, output})
            child.take_output(output)
            child.set_title(f"attnlab-runner-supervisor {config['package']}")
            os.setsid()
            if config["namespaces"]:
                if config.get("drop_uid_first"):
                    jail.user_namespace_as_runner_uid(config)
                jail.enter_namespaces(config)
                code = child.supervise(config, channel, lambda pid, pidfd: _report_init(ctl_fd, pid, pidfd))
            else:
                os.close(ctl_fd)
                child.become_runner(config, channel)
        except BaseException as exc:  # noqa: BLE001 -- nothing may return into the server's loop
            print(f"runner sandbox set-up failed: {exc}", file=sys.stderr, flush=True)
        child.exit_like(code)

    def become_runner_directly(self, config: dict, ctl: socket.socket, channel: tuple[int, int], output: int,
                               alive: int) -> NoReturn:
        """In a child forked as pid 1 of a new pid namespace (as root): the rest of the namespaces, then
        jail this process and serve as the runner; the server reports it to the judge."""
        from attnlab.grade.sandbox import child

        try:
            jail.stay_with_parent(alive)
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            ctl.detach()  # closed by forget: the server, not this process, reports on it
            self.forget(keep={*channel, output, alive})
            child.take_output(output)
            os.setsid()
            jail.enter_namespaces(config, pid=False)
            child.become_runner({**config, "parent_alive_fd": alive}, channel)
        except BaseException as exc:  # noqa: BLE001 -- nothing may return into the server's loop
            print(f"runner sandbox set-up failed: {exc}", file=sys.stderr, flush=True)
        child.exit_like(jail.EXIT_JAIL_FAILED)

    def forget(self, keep: set[int]) -> None:
        """Close every fd of the server (its socket, other runners' control sockets): a runner must not
        reach them. Socket objects are detached first, so no later close hits a reused fd number."""
        for sock in [self.sock, *self.children.values()]:
            sock.detach()
        os.close(self.wake_r)
        os.close(self.wake_w)
        low = 3
        for fd in sorted(keep):
            os.closerange(low, fd)
            low = fd + 1
        os.closerange(low, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _report_init(ctl_fd: int, pid: int, pidfd: int) -> None:
    """From the supervisor: the namespace's pid 1 (the runner) and a pidfd to kill it by."""
    with socket.socket(fileno=ctl_fd) as ctl:
        _send_quietly(ctl, {"status": "init", "pid": pid}, [pidfd])


def _send_quietly(ctl: socket.socket, header: dict, fds: list[int] = ()) -> None:
    with contextlib.suppress(OSError):  # the judge closed its end: it no longer cares
        pipes.send(ctl, header, fds)


def serve_forever(fd: int, framework: str) -> None:
    """The server's main: warm up (the submissions' framework too, in its runners' environment: imported, no
    operation run, since a framework's thread pools do not survive a fork), say whether forking is safe here,
    then serve until the judge leaves."""
    sock = socket.socket(fileno=fd)
    for name in WARM_MODULES:
        importlib.import_module(name)
    adapter = frameworks.adapter(framework)
    os.environ.update(adapter.runner_env())  # read by the framework at import (JAX's compilation cache)
    adapter.warm()
    gc.collect()
    gc.freeze()  # runners' collections then skip the inherited objects instead of copying their pages
    jail.prctl(jail.PR_SET_CHILD_SUBREAPER, 1)  # orphans of runners come back here to be reaped
    threads = len(os.listdir("/proc/self/task"))
    leaked = sorted(m for m in sys.modules if m.split(".")[0] in NEVER_IMPORTED)
    problem = (f"{threads} threads after the imports (forking needs one)" if threads != 1 else
               f"modules that runners must not inherit were imported: {leaked}" if leaked else None)
    try:
        pipes.send(sock, {"status": "refused" if problem else "ready", "pid": os.getpid(), "threads": threads,
                          "message": problem or ""})
    except OSError:
        return  # the judge finished (or died) before we were ready
    if not problem:
        Server(sock).loop()
    os._exit(0)  # nothing to flush; tearing down torch's modules would only delay the judge's exit


# -- the judge's side --------------------------------------------------------------------------------
class ForkServer:
    """The judge's handle on a server process: started at once, waited for on first use."""

    def __init__(self, *, paths: list[str], env: dict[str, str], boot_timeout_s: float, framework: str):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        argv = [sys.executable, "-I", "-u", "-B", "-c", BOOT, json.dumps(paths), str(theirs.fileno()), framework]
        self.framework = framework
        try:
            # its own session: a Ctrl-C meant for grade.py reaches the judge, whose exit then stops this
            self.popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          pass_fds=(theirs.fileno(),), env=env, cwd="/", start_new_session=True)
        except OSError as exc:
            ours.close()
            raise Unavailable(f"cannot start the runner forkserver {sys.executable}: {exc}") from None
        finally:
            theirs.close()
        self.sock, self.boot_timeout_s, self._deadline = ours, boot_timeout_s, time.monotonic() + boot_timeout_s
        self._hello: dict | None = None
        self._lock = threading.Lock()

    def ready(self) -> dict:
        """The server's hello (pid, threads); raises Unavailable if it refused or failed to start."""
        with self._lock:
            if self._hello is None:
                if not pipes.readable(self.sock, self._deadline - time.monotonic()):
                    raise Unavailable(f"the runner forkserver did not start within {self.boot_timeout_s:g} s")
                try:
                    hello, _ = pipes.receive(self.sock, 0)
                except OSError as exc:
                    raise Unavailable(f"the runner forkserver sent a bad hello: {exc}") from None
                if hello is None or hello.get("status") != "ready":
                    why = hello.get("message") if hello else f"it exited with status {self.popen.wait()}"
                    raise Unavailable(f"the runner forkserver cannot serve: {why}")
                self._hello = hello
            return self._hello

    def spawn(self, config: dict, fds: tuple[int, int, int]) -> socket.socket:
        """Ask for a runner on these (request, reply, output) pipe ends; returns our end of its control socket."""
        self.ready()
        ctl, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            pipes.send(self.sock, {"op": "spawn", "config": config}, [theirs.fileno(), *fds])
        except OSError:
            ctl.close()
            raise
        finally:
            theirs.close()
        return ctl

    def close(self) -> None:
        """EOF on its socket: the server kills whatever runners are left and exits. Still booting, it has
        none, and waiting for its imports would help nobody: kill it."""
        if self._hello is None:
            self.popen.kill()
        self.sock.close()
        try:
            self.popen.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()


_lock = threading.Lock()
_state: dict = {"server": None, "broken": None, "final": False}


def server(*, paths: list[str], env: dict[str, str], boot_timeout_s: float, framework: str,
           wait: bool = True) -> ForkServer:
    """This process's forkserver: started on first use, restarted if it died, never retried once it
    proved unable to serve here (Unavailable). wait=False only starts it booting."""
    try:
        with _lock:
            if _state["final"]:  # not Unavailable: falling back to fresh interpreters is not wanted either
                raise Stopping("the runner forkserver was shut down for good (grade.py is stopping)")
            if _state["broken"] is not None:
                raise Unavailable(_state["broken"])
            current = _state["server"]
            stale = current is not None and (current.popen.poll() is not None or current.framework != framework)
            if current is None or stale:  # none yet, it died, or it warmed another framework
                if current is not None:
                    current.close()
                _state["server"] = current = ForkServer(paths=paths, env=env, boot_timeout_s=boot_timeout_s,
                                                        framework=framework)
        if wait:
            current.ready()
    except Unavailable as exc:
        _state["broken"] = str(exc)
        raise
    return current


@atexit.register
def shutdown(*, final: bool = False) -> None:
    """Stop this process's forkserver and its runners. The next server() call starts a new one, unless
    `final` (an interrupted grade.py: gradings still running must fail now, not restart their runners)."""
    with _lock:
        current, _state["server"] = _state["server"], None
        _state["final"] = _state["final"] or final
    if current is not None:
        current.close()


# a forked judge process must start its own server: the inherited handle is its parent's
os.register_at_fork(after_in_child=lambda: _state.update(server=None))
