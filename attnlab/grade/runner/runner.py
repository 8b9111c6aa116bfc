"""The runner: the only process that imports a submission. It answers the judge's requests over two pipes.

Everything in this folder runs inside the jail, after attnlab.grade.sandbox confined the process: forked by
the forkserver (sandbox/child.py calls `run`), or started by sandbox/launch.py in a fresh interpreter
(`python -m attnlab.grade.runner.runner --requests 3 --replies 4 --package DIR` also works by hand). stdout
and stderr belong to the submission and go to the judge's capped capture, so every frame travels on the
reply fd instead. Frames in order:
  {"status": "started"}                          torch and the harness are imported (the harness's time)
  {"status": "ready"} | {"status": "error", ...}  the submission package imported, or why not
  then, per request (one exercise's function, a list of calls: see RemoteImpl.call_many), one reply per
  call, in order: {"status": "ok", "tensors": meta, "inputs_modified": [...], "output_aliases": [...]}
  + payload, or {"status": <Outcome.status>, "message": <a catalogue message as data>, "call": ...}.
Everything this process reports is treated by the judge as untrusted (the submission runs here too).
"""

import argparse
import os
import resource
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

from attnlab.core import frameworks
from attnlab.core.calls import describe_exception
from attnlab.core.frameworks.base import Adapter
from attnlab.core.i18n import Message, to_wire
from attnlab.core.impl import call_checked, find_function, load_package
from attnlab.core.imports import course_offers
from attnlab.core.inputs import changed
from attnlab.core.outcomes import Outcome, SubmissionError, exception_chain
from attnlab.core.outputs import parts
from attnlab.core.status import Status
from attnlab.grade.protocol.args import decode_args, output_tensors, read_output
from attnlab.grade.protocol.channel import (
    ChannelClosed,
    ChannelError,
    decode_tensors,
    encode_tensors,
    read_frame,
    write_frame,
)
from attnlab.grade.runner import output

MAX_REQUEST = 1 << 31
MAX_REQUEST_HEADER = 1 << 24  # a request lists its calls in the header (the judge is trusted here)


def run_call(package, adapter: Adapter, common: dict, call: dict,
             tensors: dict[str, torch.Tensor]) -> tuple[dict, dict[str, torch.Tensor]]:
    """Make one call of a request; the ok-reply fields and the tensors to send back."""
    kwargs = decode_args(call["args"], tensors)
    fn = find_function(package, common["module"], common["function"])
    how = {"exercise": common["exercise"], "function": common["function"], "kwargs": kwargs,
           "forbidden_calls": tuple(common["forbidden"])}
    if call["op"] == "call":
        budget = call.get("max_tensor_mb")
        budget = float(budget) if isinstance(budget, (int, float)) and not isinstance(budget, bool) else None
        with address_space_for(budget):
            tile = call.get("max_tile_side")
            tile = tile if isinstance(tile, int) and not isinstance(tile, bool) else None
            returned = call_checked(fn, deep_guard=call.get("deep_guard", True) is not False, max_tensor_mb=budget,
                                    max_tile_side=tile, adapter=adapter, **how)
        output = returned.output
        result, count = output_tensors(output)
        modified, aliases = returned.modified, returned.aliases
    elif call["op"] == "vjp":
        received = {k: v.clone() for k, v in kwargs.items() if isinstance(v, torch.Tensor)}
        cotangent = read_output(tensors, call.get("cotangent_count"), call["cotangent_key"])
        if cotangent is None:
            raise ValueError("vjp request without its cotangent")
        cotangent = on_devices(cotangent, call.get("cotangent_devices"))
        output, grads = adapter.vjp(fn, wrt=tuple(call["wrt"]), cotangent=cotangent, **how)
        result, count = output_tensors(output)
        result.update({f"grad:{name}": g for name, g in grads.items() if g is not None})
        modified, aliases = changed(kwargs, received), ()
        unreached = [name for name, g in grads.items() if g is None]
    else:
        raise ValueError(f"unknown op {call['op']!r}")
    result.update({f"input:{name}": kwargs[name] for name in modified})
    reply = {"status": "ok", "inputs_modified": list(modified), "output_aliases": list(aliases), "outputs": count,
             "devices": [str(t.device) for t in parts(output)]}
    if call["op"] == "vjp":
        reply["unreached"] = unreached
    return reply, result


def on_devices(output: torch.Tensor | tuple, devices: Any) -> torch.Tensor | tuple:
    """`output` (received on the CPU) moved part by part to the devices the judge names, as its calls' arguments
    are (attnlab.grade.protocol.args): a cotangent on the CPU would meet a CUDA output inside autograd."""
    found = parts(output)
    if not isinstance(devices, list) or len(devices) != len(found):
        return output
    moved = tuple(t.to(str(device)) for t, device in zip(found, devices))
    return moved if isinstance(output, tuple) else moved[0]


@contextmanager
def address_space_for(budget_mb: float | None) -> Iterator[None]:
    """Around a call with a tensor budget, lower the soft address-space limit to what the process uses now
    plus a margin over the budget, so a tensor far over it fails to allocate instead of filling memory."""
    if budget_mb is None or torch.cuda.is_initialized():  # CUDA's context reserves address space it never uses
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    room = int((4 * budget_mb + 256) * 2**20)
    lowered = _address_space_bytes() + room
    if hard != resource.RLIM_INFINITY:
        lowered = min(lowered, hard)
    if soft != resource.RLIM_INFINITY:
        lowered = min(lowered, soft)
    resource.setrlimit(resource.RLIMIT_AS, (lowered, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _address_space_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    return 0


def _is_memory_failure(exc: BaseException | None) -> bool:
    return any(isinstance(e, MemoryError) or "can't allocate memory" in str(e) for e in exception_chain(exc))


def handle(package, adapter: Adapter, header: dict, payload: bytes) -> Iterator[tuple[dict, bytes]]:
    """The reply frames of one request, one per call, each as soon as its call returns. Never raises:
    a broken request or call is reported in its reply, not fatal."""
    calls = header.get("calls")
    if not isinstance(calls, list) or not calls:
        yield _error(Status.ERROR, Message("grade.bad_request", {"detail": "no calls"})), b""
        return
    try:
        tensors = decode_tensors(header["tensors"], payload)
    except (ChannelError, KeyError) as exc:
        for _ in calls:
            yield _error(Status.ERROR, Message("grade.bad_request", {"detail": f"{type(exc).__name__}: {exc}"})), b""
        return
    for call in calls:
        yield reply_to(package, adapter, header, call, tensors)


def _error(status: Status, message: Message, call: str | None = None, hint: Message | None = None) -> dict:
    """An error reply; `hint`: the outcome's own advice (Outcome.with_hint), shown as it is in pytest."""
    reply = {"status": str(status), "message": to_wire(message), "call": call}
    if hint is not None:
        reply["hint"] = to_wire(hint)
    return reply


def reply_to(package, adapter: Adapter, common: dict, call: dict,
             tensors: dict[str, torch.Tensor]) -> tuple[dict, bytes]:
    """One call's reply frame; never raises."""
    exercise = common.get("exercise")
    try:
        reply, result = run_call(package, adapter, common, call, tensors)
        try:
            meta, data = encode_tensors(result)
        except ChannelError as exc:
            raise SubmissionError("grade.cannot_return", exercise=exercise, detail=str(exc)) from None
        return {**reply, "tensors": meta}, data
    except Outcome as exc:
        if _is_memory_failure(exc):
            out_of_memory = Message("grade.out_of_memory", {"exercise": exercise, "detail": exc.message})
            return _error(Status.MEMORY, out_of_memory), b""
        return _error(exc.status, exc.message, getattr(exc, "call", None), exc.hint), b""
    except MemoryError as exc:
        return _error(Status.MEMORY, Message("grade.out_of_memory", {"exercise": exercise, "detail": str(exc)})), b""
    except (ChannelError, KeyError, TypeError, ValueError, AttributeError) as exc:
        return _error(Status.ERROR, Message("grade.bad_request", {"detail": f"{type(exc).__name__}: {exc}"})), b""
    except BaseException as exc:  # noqa: BLE001 -- SystemExit etc. raised by the submission's function
        return _error(Status.ERROR, Message("exercise_problem", {"exercise": exercise,
                                                                  "problem": describe_exception(exc)})), b""


def import_submission(path: Path, libraries: tuple[str, ...], adapter: Adapter) -> tuple[Any, dict]:
    """The imported package and the hello frame; SystemExit at import is a failure, not an exit."""
    try:
        adapter.prepare()
        return load_package(path, course_offers(adapter, libraries)), {"status": "ready"}
    except Outcome as exc:
        return None, {"status": "error", "message": to_wire(exc.message)}
    except BaseException as exc:  # noqa: BLE001 -- SystemExit, KeyboardInterrupt: still just a failed import
        return None, {"status": "error", "message": to_wire(Message("grade.import_failed",
                                                                    {"problem": describe_exception(exc)}))}


def _reap_orphans() -> None:
    """As pid 1 (or subreaper) orphans of the submission become our children: reap finished ones."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def serve(package, adapter: Adapter, requests, replies) -> None:
    while True:
        _reap_orphans()
        try:
            header, payload = read_frame(requests, max_header=MAX_REQUEST_HEADER, max_payload=MAX_REQUEST)
        except ChannelClosed:
            return
        for reply in handle(package, adapter, header, payload):
            write_frame(replies, *reply)


def run(requests_fd: int, replies_fd: int, package_dir: Path, libraries: tuple[str, ...], framework: str) -> None:
    """Announce, import the submission, then answer requests until the judge closes the channel. `framework`:
    the name the judge sent, looked up once here."""
    adapter = frameworks.adapter(framework)
    torch.set_num_threads(1)  # one thread per runner: parallel graders share the cores
    output.never_block()  # a print flood must not make the runner wait for the judge
    requests = os.fdopen(requests_fd, "rb", buffering=1 << 16)  # a frame in one read(2), usually
    replies = os.fdopen(replies_fd, "wb", buffering=0)
    write_frame(replies, {"status": "started"})
    package, hello = import_submission(package_dir, libraries, adapter)
    write_frame(replies, hello)
    if package is not None:
        serve(package, adapter, requests, replies)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m attnlab.grade.runner.runner")
    parser.add_argument("--requests", type=int, default=0, help="fd the judge's requests arrive on")
    parser.add_argument("--replies", type=int, required=True, help="fd the replies are written to")
    parser.add_argument("--package", type=Path, required=True, help="the submission package directory")
    parser.add_argument("--libraries", default="", help="comma-separated packages the course lets it import")
    parser.add_argument("--framework", required=True, help="what the submission is written in")
    args = parser.parse_args(argv)
    run(args.requests, args.replies, args.package, tuple(filter(None, args.libraries.split(","))), args.framework)


if __name__ == "__main__":
    main(sys.argv[1:])
