"""The runner: the only process that imports a submission. It answers the judge's requests over two pipes.

Forked by the forkserver (forkserver.py), which calls `supervise` / `become_runner` below in the
child, or started by sandbox.py in a fresh interpreter (`python -m harness.grade.runner --requests 3
--replies 4 --package DIR` also works by hand). stdout and stderr belong to the submission and go to the judge's
capped capture, so every frame travels on the reply fd instead. Frames in order:
  {"status": "started"}                          torch and the harness are imported (the harness's time)
  {"status": "ready"} | {"status": "error", ...}  the submission package imported, or why not
  then, per request (one exercise's function, a list of calls: see RemoteImpl.call_many), one reply per
  call, in order: {"status": "ok", "tensors": meta, "inputs_modified": [...], "output_aliases": [...]}
  + payload, or {"status": <Outcome.status>, "message": ..., "call": ...}.
Everything this process reports is treated by the judge as untrusted (the submission runs here too).
"""

import argparse
import importlib
import os
import random
import resource
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

import torch

from harness.grade import jail
from harness.grade.channel import (
    ChannelClosed,
    ChannelError,
    decode_tensors,
    encode_tensors,
    read_frame,
    tensor_bytes,
    write_frame,
)
from harness.impl import as_tensor, describe_exception, find_function, invoke, load_package, vjp_call
from harness.inputs import apply_layout
from harness.outcomes import Outcome, SubmissionError

MAX_REQUEST = 1 << 31
MAX_REQUEST_HEADER = 1 << 24  # a request lists its calls in the header (the judge is trusted here)


def build_kwargs(args: dict, tensors: dict[str, torch.Tensor]) -> dict[str, Any]:
    """The call's keyword arguments from the request's argument descriptions."""
    kwargs: dict[str, Any] = {}
    for name, arg in args.items():
        kind = arg["kind"]
        if kind == "tensor":
            layout = arg.get("layout", "contiguous")
            value = tensors[arg["key"]]
            kwargs[name] = value if layout == "contiguous" else apply_layout(value, layout)
        elif kind == "value":
            kwargs[name] = arg["value"]
        elif kind == "generator":
            kwargs[name] = torch.Generator().manual_seed(int(arg["seed"]))
        elif kind == "device":
            kwargs[name] = "cpu"
        else:
            raise ValueError(f"argument {name!r}: unknown kind {kind!r}")
    return kwargs


def _changed(now: torch.Tensor, before: torch.Tensor) -> bool:
    # bytes, not torch.equal: NaN != NaN would flag an untouched input
    return now.shape != before.shape or now.dtype != before.dtype or tensor_bytes(now) != tensor_bytes(before)


def run_call(package, common: dict, call: dict, tensors: dict[str, torch.Tensor]) -> tuple[dict, dict[str, torch.Tensor]]:
    """Make one call of a request; the ok-reply fields and the tensors to send back."""
    kwargs = build_kwargs(call["args"], tensors)
    received = {k: v.clone() for k, v in kwargs.items() if isinstance(v, torch.Tensor)}
    fn = find_function(package, common["module"], common["function"])
    how = {"exercise": common["exercise"], "kwargs": kwargs, "forbidden_calls": tuple(common["forbidden"])}
    if call["op"] == "call":
        deep = call.get("deep_guard", True) is not False
        output = as_tensor(invoke(fn, deep_guard=deep, **how), common["function"]).detach()
        result = {"output": output}
    elif call["op"] == "vjp":
        output, grads = vjp_call(fn, function=common["function"], wrt=tuple(call["wrt"]),
                                 cotangent=tensors[call["cotangent_key"]], **how)
        result = {"output": output, **{f"grad:{name}": g for name, g in grads.items()}}
    else:
        raise ValueError(f"unknown op {call['op']!r}")
    modified = [name for name, before in received.items() if _changed(kwargs[name], before)]
    result.update({f"input:{name}": kwargs[name] for name in modified})
    aliases = [name for name in received if output.numel() and output.data_ptr() == kwargs[name].data_ptr()]
    return {"status": "ok", "inputs_modified": modified, "output_aliases": aliases}, result


def _is_memory_failure(exc: BaseException | None) -> bool:
    while exc is not None:
        if isinstance(exc, MemoryError) or "can't allocate memory" in str(exc):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


def handle(package, header: dict, payload: bytes) -> Iterator[tuple[dict, bytes]]:
    """The reply frames of one request, one per call, each as soon as its call returns. Never raises:
    a broken request or call is reported in its reply, not fatal."""
    calls = header.get("calls")
    if not isinstance(calls, list) or not calls:
        yield {"status": "error", "message": "bad request (no calls)"}, b""
        return
    try:
        tensors = decode_tensors(header["tensors"], payload)
    except (ChannelError, KeyError) as exc:
        for _ in calls:
            yield {"status": "error", "message": f"bad request ({type(exc).__name__}: {exc})"}, b""
        return
    for call in calls:
        yield reply_to(package, header, call, tensors)


def reply_to(package, common: dict, call: dict, tensors: dict[str, torch.Tensor]) -> tuple[dict, bytes]:
    """One call's reply frame; never raises."""
    try:
        reply, result = run_call(package, common, call, tensors)
        try:
            meta, data = encode_tensors(result)
        except ChannelError as exc:
            raise SubmissionError(f"{common['exercise']}: cannot return this result: {exc}") from None
        return {**reply, "tensors": meta}, data
    except Outcome as exc:
        if _is_memory_failure(exc):
            return {"status": "memory", "message": f"{common.get('exercise')}: out of memory ({exc})"}, b""
        return {"status": exc.status, "message": str(exc), "call": getattr(exc, "call", None)}, b""
    except MemoryError as exc:
        return {"status": "memory", "message": f"{common.get('exercise')}: out of memory ({exc})"}, b""
    except (ChannelError, KeyError, TypeError, ValueError, AttributeError) as exc:
        return {"status": "error", "message": f"bad request ({type(exc).__name__}: {exc})"}, b""
    except BaseException as exc:  # noqa: BLE001 -- SystemExit etc. raised by the submission's function
        return {"status": "error", "message": f"{common.get('exercise')}: {describe_exception(exc)}"}, b""


def import_submission(path: Path) -> tuple[Any, dict]:
    """The imported package and the hello frame; SystemExit at import is a failure, not an exit."""
    try:
        return load_package(path), {"status": "ready"}
    except Outcome as exc:
        return None, {"status": "error", "message": str(exc)}
    except BaseException as exc:  # noqa: BLE001 -- SystemExit, KeyboardInterrupt: still just a failed import
        return None, {"status": "error",
                      "message": f"importing the submission failed: {describe_exception(exc)}"}


def _reap_orphans() -> None:
    """As pid 1 (or subreaper) orphans of the submission become our children: reap finished ones."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def serve(package, requests, replies) -> None:
    while True:
        _reap_orphans()
        try:
            header, payload = read_frame(requests, max_header=MAX_REQUEST_HEADER, max_payload=MAX_REQUEST)
        except ChannelClosed:
            return
        for reply in handle(package, header, payload):
            write_frame(replies, *reply)


def run(requests_fd: int, replies_fd: int, package_dir: Path) -> None:
    """Announce, import the submission, then answer requests until the judge closes the channel."""
    torch.set_num_threads(1)  # one thread per runner: parallel graders share the cores
    requests = os.fdopen(requests_fd, "rb", buffering=1 << 16)  # a frame in one read(2), usually
    replies = os.fdopen(replies_fd, "wb", buffering=0)
    write_frame(replies, {"status": "started"})
    package, hello = import_submission(package_dir)
    write_frame(replies, hello)
    if package is not None:
        serve(package, requests, replies)


# -- a runner forked by the forkserver ------------------------------------------------------------
def forget_parent(env: dict[str, str]) -> None:
    """In a runner forked from the forkserver: drop what a fresh interpreter would not have inherited.
    The server's environment is already clean; caches of its file-system view would be stale in the jail."""
    os.environ.clear()
    os.environ.update(env)
    sys.argv = ["harness.grade.runner"]
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


def set_title(title: str) -> None:
    """Show `title` as this process's command line (ps, /proc/PID/cmdline): a forked runner would otherwise
    show the forkserver's. Rewrites the argv area in place, as setproctitle does."""
    with open("/proc/self/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])  # arg_start, arg_end: fields 48 and 49 of stat(5)
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
    code = 0
    try:
        run(3, 4, Path(config["package"]))
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


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m harness.grade.runner")
    parser.add_argument("--requests", type=int, default=0, help="fd the judge's requests arrive on")
    parser.add_argument("--replies", type=int, required=True, help="fd the replies are written to")
    parser.add_argument("--package", type=Path, required=True, help="the submission package directory")
    args = parser.parse_args(argv)
    run(args.requests, args.replies, args.package)


if __name__ == "__main__":
    main(sys.argv[1:])
