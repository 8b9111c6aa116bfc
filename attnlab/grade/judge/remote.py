"""RemoteImpl: the judge's Implementation. Same call_many/vjp as attnlab.core.impl.InProcessImpl, but the
submission runs in a sandboxed runner process (attnlab.grade.sandbox) and only frames come back.

The runner starts lazily (forked from the warm forkserver: sandbox.start_runner), on a fresh copy of the
submission in a fresh scratch dir, and after any kill (timeout, crash, protocol violation) the next call
starts a new one. Starting does not count against the exercise budget (the import has its own limit); a
failed import fails every later call at once.
"""

import functools
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import torch

from attnlab.core.config import Limits
from attnlab.core.frameworks.base import Adapter
from attnlab.core.i18n import from_wire
from attnlab.core.impl import Returned
from attnlab.core.outcomes import (
    ForbiddenCall,
    KernelRuleBroken,
    MemoryLimit,
    NotApplicable,
    NotImplementedByStudent,
    Outcome,
    ShapeError,
    SubmissionError,
    TimeLimit,
)
from attnlab.core.outputs import parts
from attnlab.core.spec import CaseBudget
from attnlab.core.status import Status
from attnlab.grade.judge.clock import RunnerClock
from attnlab.grade.judge.compile_cache import CompileCache, harvest
from attnlab.grade.protocol.args import encode_args, mirror_inplace, output_tensors, read_output
from attnlab.grade.protocol.channel import (
    ChannelClosed,
    ChannelError,
    ChannelTruncated,
    decode_tensors,
    encode_tensors,
    read_frame,
    write_frame,
)
from attnlab.grade.sandbox import pipes
from attnlab.grade.sandbox.launch import ForkedRunner, RunnerProcess, start_runner
from attnlab.grade.sandbox.levels import Isolation, isolation_level
from attnlab.grade.sandbox.scratch import copy_submission, remove_tree

EXIT_JAIL_FAILED = 121  # jail.py's exit status when the sandbox could not be set up
FILLED = "compile-cache"  # in a filling runner's scratch dir: what it compiles (compile_cache.harvest)
MAX_DEATHS_PER_BUDGET = 2  # runner restarts allowed within one exercise before failing fast
MAX_CALLS_PER_REQUEST = 64  # a request carries up to this many calls: one round trip, not 64
# NOT_APPLICABLE: the runner's adapter lacks the case's dtype or does not differentiate (NumPy's gradient law)
OUTCOMES = {Status.NOT_IMPLEMENTED: NotImplementedByStudent, Status.ERROR: SubmissionError,
            Status.FAILED: ShapeError, Status.TIMEOUT: TimeLimit, Status.MEMORY: MemoryLimit,
            Status.NOT_APPLICABLE: NotApplicable}


class RemoteImpl:
    def __init__(self, submission_dir: Path, *, name: str, limits: Limits, adapter: Adapter,
                 hidden_paths: list[Path], scratch_root: Path, libraries: tuple[str, ...] = (),
                 compile_cache: CompileCache | None = None, tripwires: tuple[str, ...] = ()):
        self.name = name
        self.limits = limits
        self.adapter = adapter  # the framework the submission is written in: its runner converts
        self.libraries = tuple(libraries)  # the course's libraries (the framework's own come with its adapter)
        self.tripwires = tuple(tripwires)  # banned ATen operators its runners start with (launch.jail_config)
        self.isolation = isolation_level(limits.isolation)
        self.submission_dir = Path(submission_dir).resolve()
        self.hidden_paths = list(_resolved(tuple(map(str, hidden_paths))))
        self.scratch_root = Path(scratch_root).resolve()
        # rlimits-only: the runner could write the judge's files, the cache among them
        self.compile_cache = compile_cache if self.isolation is not Isolation.RLIMITS_ONLY else None
        self._tail = pipes.OutputTail(limits.max_output_bytes)
        self._runner: RunnerProcess | ForkedRunner | None = None
        self._scratch: Path | None = None
        self._drain = None
        self._reader: pipes.DeadlineReader | None = None  # one per runner: it may read ahead
        self._writer: pipes.DeadlineWriter | None = None
        self._import_failure: Outcome | None = None
        self._clock: RunnerClock | None = None  # the current exercise's time (see budget)
        self._deaths: list[Outcome] = []  # runner deaths (crash, kill) inside the current budget

    # -- the Implementation interface -------------------------------------------------------------
    def call_many(self, *, exercise, module, function, calls, forbidden_calls,
                  deep_guard=True, budgets=None) -> list[Returned | Outcome]:
        """Make every call of `calls` (kwargs dicts) in one request: one round trip to the runner, which
        answers each call as it returns, instead of one per call. Per call, in order: what it returned, or
        the Outcome that calling alone would have raised. The same as calling one by one: after a runner
        death the rest go to a new runner (within the budget)."""
        budgets = [CaseBudget.of(b) for b in budgets or [None] * len(calls)]
        items = [("call", kwargs, {"deep_guard": bool(deep_guard), "max_tensor_mb": budget.tensor_mb,
                                   "max_tile_side": budget.tile_side}, {})
                 for kwargs, budget in zip(calls, budgets)]
        results = []
        for kwargs, got in zip(calls, self._exchange(exercise, module, function, forbidden_calls, items)):
            if not isinstance(got, Exception):
                try:
                    got = self._returned(exercise, *got, kwargs)
                except Outcome as exc:
                    got = exc
            results.append(got)
        return results

    def vjp(self, *, exercise, module, function, kwargs, forbidden_calls, wrt, cotangent):
        cotangents, count = output_tensors(cotangent, "cotangent")
        # tensors travel on the CPU: the runner puts the cotangent back where the judge made it (the outputs' device)
        extra = {"wrt": list(wrt), "cotangent_key": "cotangent", "cotangent_count": count,
                 "cotangent_devices": [str(t.device) for t in parts(cotangent)]}
        [got] = self._exchange(exercise, module, function, forbidden_calls, [("vjp", kwargs, extra, cotangents)])
        if isinstance(got, Exception):
            raise got
        reply, tensors = got
        unreached = reply.get("unreached", [])
        if not isinstance(unreached, list) or not set(unreached) <= set(wrt):
            raise self._violation(exercise, ChannelError("vjp reply with an invalid list of unreached arguments"))
        grads = {}
        for name in wrt:
            grads[name] = tensors.get(f"grad:{name}")
            if grads[name] is None and name not in unreached:
                raise SubmissionError("grade.protocol", exercise=exercise, detail=f"no gradient for {name!r}")
        return self._returned(exercise, reply, tensors, kwargs).output, grads

    @contextmanager
    def budget(self, seconds: float) -> Iterator["RemoteImpl"]:
        """Every call inside shares one budget of `seconds` of the runner's CPU time, with a wall-clock
        backstop (attnlab.grade.judge.clock); once spent, each call fails at once with the clock's verdict.
        A budget is one exercise: output_tail starts afresh, so feedback shows only this exercise's output."""
        self._tail.clear()
        previous = self._clock, self._deaths
        self._deaths = []
        self._clock = self._new_clock(seconds)
        try:
            yield self
        finally:
            if self._clock is not None:
                self._clock.stop()  # nothing reads it again: no need to read what the runner used
            self._clock, self._deaths = previous

    def _new_clock(self, cpu_s: float) -> RunnerClock:
        clock = RunnerClock(cpu_s, self.limits.backstop(cpu_s))
        if self._runner is not None:
            clock.attach(self._runner.runner_pid)
        return clock

    @property
    def output_tail(self) -> str:
        """The last Limits.max_output_bytes the runner printed since the current budget began."""
        if self._drain is not None:
            self._drain.settle()  # what it printed before its last reply may still be in the pipe
        return self._tail.text()

    def start(self) -> None:
        """Start the runner now (otherwise the first call does); raises the import failure, if any."""
        if self._import_failure is not None:
            raise _copy(self._import_failure)
        if self._runner is None:
            self._launch()  # the runner's start and import have clocks of their own
            if self._clock is not None:
                self._clock.attach(self._runner.runner_pid)

    def close(self) -> None:
        if self._runner is not None:
            if self._clock is not None:
                self._clock.detach()  # what it used counts, though it is gone
            self._runner.kill()
            self._drain.join(timeout=5)
            self._runner = self._reader = self._writer = None
        if self._scratch is not None:
            if self.compile_cache is not None and self.compile_cache.fill:
                harvest(self._scratch / FILLED, self.compile_cache.path)
            remove_tree(self._scratch)
            self._scratch = None

    def __enter__(self) -> "RemoteImpl":  # noqa: PYI034 -- Self needs 3.11; the project supports 3.10
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- starting ----------------------------------------------------------------------------------
    def _launch(self) -> None:
        self._scratch = Path(tempfile.mkdtemp(prefix="runner-", dir=self.scratch_root))
        owner = (self.limits.uid, self.limits.gid) if self.isolation.drops_uid else None
        cache = self._runner_cache()
        try:
            package = copy_submission(self.submission_dir, self._scratch, owner=owner)
        except OSError as exc:
            self._import_failure = SubmissionError("upload.cannot_copy", path=str(self.submission_dir),
                                                   problem=str(exc))
        except SubmissionError as exc:
            self._import_failure = exc
        if self._import_failure is not None:
            self.close()
            raise _copy(self._import_failure)
        try:
            self._runner = start_runner(level=self.isolation, limits=self.limits, adapter=self.adapter,
                                        scratch=self._scratch,
                                        libraries=self.libraries, tripwires=self.tripwires,
                                        package=package, hidden=self.hidden_paths, covered=[self.scratch_root],
                                        compile_cache=cache)
        except OSError:
            self.close()
            raise
        self._drain = pipes.Drain(self._runner.output, self._tail)
        self._reader = pipes.DeadlineReader(self._runner.replies)
        self._writer = pipes.DeadlineWriter(self._runner.requests)
        try:
            self._hello("started", self.limits.boot_timeout_s)
            hello = self._hello("ready", self.limits.import_timeout_s)
        except Outcome as exc:
            self._import_failure = exc
            raise
        if hello.get("status") != "ready":
            self._import_failure = SubmissionError("raw", text=from_wire(hello.get("message")))
            self.close()
            raise _copy(self._import_failure)

    def _runner_cache(self) -> Path | None:
        """The compilation cache the next runner gets: the judge's, read-only; or, filling it, a fresh
        directory in the runner's scratch dir (copied into the judge's at close)."""
        if self.compile_cache is None:
            return None
        if not self.compile_cache.fill:
            return self.compile_cache.path
        (self._scratch / FILLED).mkdir()  # chowned to the runner with the submission's copy
        return self._scratch / FILLED

    def _hello(self, stage: str, timeout_s: float) -> dict:
        """The runner's "started" frame (its start is the harness's time: wall clock), then its "ready" one
        (importing the submission is the student's: CPU time, with a backstop)."""
        if stage == "started":
            clock = pipes.Deadline(timeout_s)
        else:
            clock = RunnerClock(timeout_s, self.limits.backstop(timeout_s))
            clock.attach(self._runner.runner_pid)
        self._reader.clock = clock
        try:
            header, _ = read_frame(self._reader, max_payload=0)
        except pipes.Expired:
            verdict = None if stage == "started" else clock.verdict("import", importing=True)
            self.close()
            if verdict is None:
                raise RuntimeError(f"the grading runner did not start within {timeout_s} s") from None
            raise verdict from None
        except (ChannelError, OSError) as exc:
            raise self._failure("importing the submission", exc, starting=stage == "started") from None
        if stage == "started" and header.get("status") != "started":
            raise self._failure("starting", ChannelError(f"unexpected frame {header!r:.200}"), starting=True)
        return header

    # -- requests ----------------------------------------------------------------------------------
    def _exchange(self, exercise, module, function, forbidden_calls,
                  items: list[tuple[str, dict, dict, dict]]) -> list["tuple[dict, dict] | Exception"]:
        """Send the calls (op, kwargs, extra header fields, extra tensors) in requests of at most
        MAX_CALLS_PER_REQUEST; per call, in order: (ok reply, its tensors) or the failure (an Outcome)."""
        results: list = []
        while len(results) < len(items):
            try:
                self._ready_for(exercise)
            except Outcome as exc:  # every call left would fail alike, one by one
                return results + [_copy(exc) for _ in items[len(results):]]
            chunk = items[len(results):len(results) + MAX_CALLS_PER_REQUEST]
            results += self._request(exercise, module, function, forbidden_calls, chunk)
        return results

    def _ready_for(self, exercise: str) -> None:
        """A live runner and budget left for the next call, or the Outcome saying why not."""
        self._check_budget(exercise)
        if len(self._deaths) >= MAX_DEATHS_PER_BUDGET:
            # an exercise that kills its runner this often fails its remaining checks at once with the
            # same reason (with the exec launcher each restart would also cost a torch import)
            raise _copy(self._deaths[-1])
        if self._runner is None:  # starting one takes time of the budget: read the clock again after it
            self.start()
            self._check_budget(exercise)

    def _request(self, exercise, module, function, forbidden_calls, items) -> list:
        """One request frame, then its replies as the runner sends them; stops after the first failure
        that ends the runner (the caller sends the calls after it again, to a new runner)."""
        tensors: dict[str, torch.Tensor] = {}
        calls = []
        for i, (op, kwargs, extra, extra_tensors) in enumerate(items):
            args, arg_tensors = encode_args(kwargs, prefix=f"{i}:")
            tensors.update(arg_tensors)
            tensors.update({f"{i}:{key}": t for key, t in extra_tensors.items()})
            if "cotangent_key" in extra:
                extra = {**extra, "cotangent_key": f"{i}:{extra['cotangent_key']}"}
            calls.append({"op": op, "args": args, **extra})
        meta, payload = encode_tensors(tensors)
        header = {"exercise": exercise, "module": module, "function": function,
                  "forbidden": list(forbidden_calls), "calls": calls, "tensors": meta}
        clock = self._clock or self._new_clock(self.limits.timeout_s)  # outside a budget: one per request
        self._reader.clock = self._writer.clock = clock
        results: list = []
        try:
            write_frame(self._writer, header, payload)
            for _ in items:
                reply, data = read_frame(self._reader, max_payload=self.limits.max_reply_mb << 20)
                try:
                    results.append(self._parse_reply(exercise, reply, data))
                except Outcome as exc:
                    results.append(exc)
                    if self._runner is None:  # a protocol violation: the runner was killed
                        break
        except pipes.Expired:
            verdict = clock.verdict(exercise)
            self.close()
            results.append(verdict)
        except (ChannelError, OSError) as exc:
            failure = self._failure(exercise, exc)
            if not isinstance(failure, Outcome):
                raise failure from None
            self._deaths.append(failure)
            results.append(failure)
        return results

    def _check_budget(self, exercise: str) -> None:
        if self._clock is not None and self._clock.exhausted():
            raise self._clock.verdict(exercise)

    def _parse_reply(self, exercise: str, reply: dict, data: bytes) -> tuple[dict, dict[str, torch.Tensor]]:
        status = reply.get("status")
        if status == "ok":
            try:
                return reply, decode_tensors(reply.get("tensors"), data)
            except ChannelError as exc:
                raise self._violation(exercise, exc) from None
        if status == Status.FORBIDDEN and isinstance(reply.get("call"), str):
            raise ForbiddenCall(exercise, reply["call"][:200])
        if status == Status.FORBIDDEN:  # a Triton exercise's kernel rule, in the runner's words
            raise KernelRuleBroken("raw", text=from_wire(reply.get("message")))
        if status in OUTCOMES:
            outcome = OUTCOMES[status]("raw", text=from_wire(reply.get("message")))
            hint = from_wire(reply["hint"]) if isinstance(reply.get("hint"), dict) else None
            if hint is not None and hint.key != "raw":  # advice from the catalogue only, never the runner's text
                outcome.with_hint(hint)
            raise outcome
        raise self._violation(exercise, ChannelError(f"unknown reply status {status!r:.100}"))

    def _returned(self, exercise: str, reply: dict, tensors: dict[str, torch.Tensor],
                  kwargs: dict[str, Any]) -> Returned:
        """The output and what the runner reported about the inputs, after mirroring in-place changes into
        the caller's kwargs, so the checks see exactly what an in-process call would have shown them."""
        output = read_output(tensors, reply.get("outputs"))
        modified, aliases = reply.get("inputs_modified", []), reply.get("output_aliases", [])
        if output is None or not _names(modified, kwargs) or not _names(aliases, kwargs):
            raise self._violation(exercise, ChannelError("ok reply without a valid output/inputs report"))
        for name in modified:
            mirror_inplace(kwargs[name], tensors.get(f"input:{name}"), name)
        devices = reply.get("devices")
        if not isinstance(devices, list) or len(devices) != len(parts(output)) or not all(
                isinstance(d, str) and len(d) < 32 and _is_device(d) for d in devices):
            raise self._violation(exercise, ChannelError("ok reply without the outputs' devices"))
        return Returned(output, tuple(modified), tuple(aliases), devices=tuple(devices))

    # -- failures ----------------------------------------------------------------------------------
    def _failure(self, exercise: str, exc: BaseException, *, starting: bool = False) -> Exception:
        """Why the channel broke: the runner died (how), or it is alive and sent garbage."""
        # a closed pipe means the runner is exiting: wait for its status; garbage means it is still alive
        closed = isinstance(exc, (ChannelClosed, ChannelTruncated, BrokenPipeError))
        code = self._runner.exit_code(wait_s=2.0 if closed else 0.05)
        tail = self.output_tail[-500:]
        self.close()
        if starting or code == EXIT_JAIL_FAILED:
            return RuntimeError(f"the grading runner failed to start (exit status {code}): {exc}\n{tail}")
        if code is None:
            return SubmissionError("grade.protocol", exercise=exercise, detail=str(exc))
        if code == -signal.SIGKILL:
            return MemoryLimit("grade.killed", exercise=exercise)
        if code < 0:
            return SubmissionError("grade.crashed", exercise=exercise, signal=-code, name=_signal_name(-code))
        return SubmissionError("grade.exited", exercise=exercise, code=code)

    def _violation(self, exercise: str, exc: Exception) -> SubmissionError:
        self.close()
        return SubmissionError("grade.protocol", exercise=exercise, detail=str(exc))


@functools.lru_cache(maxsize=8)
def _resolved(paths: tuple[str, ...]) -> tuple[Path, ...]:
    """`paths` resolved, once per list: a grading run hands every submission's RemoteImpl the same list, every
    submission's source among them, and resolving it anew cost each submission time in proportion to the class
    (9.7 ms of realpath for a class of 200). The judge's list is resolved already (judge.hidden_paths_for)."""
    return tuple(Path(p).resolve() for p in paths)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return "unknown signal"


def _copy(exc: Outcome) -> Outcome:
    fresh = type(exc).__new__(type(exc))
    fresh.__dict__.update(exc.__dict__)
    fresh.args = exc.args
    return fresh


def _names(value: Any, kwargs: dict[str, Any]) -> bool:
    return isinstance(value, list) and all(isinstance(kwargs.get(n), torch.Tensor) for n in value)


def _is_device(name: str) -> bool:
    """Whether torch reads `name` as a device (the checks compare it with the input's: a name it cannot read
    would fail there, in the judge's code)."""
    try:
        torch.device(name)
    except (RuntimeError, ValueError):
        return False
    return True
