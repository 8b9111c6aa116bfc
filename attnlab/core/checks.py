"""The checks, written once: build a case's inputs, call the implementation, check shape, dtype, device,
inputs unchanged, values, then diagnose. Used in-process by the pytest plugin and by the grader's judge.
"""

import dataclasses
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import torch

from attnlab.core import devices, fixtures, inputs, precision
from attnlab.core.calls import UNGUARDED, vjp_call
from attnlab.core.compare import compare, excess, tolerance_for
from attnlab.core.diagnose import diagnose, run_misconception
from attnlab.core.i18n import Message, t
from attnlab.core.impl import Implementation, Returned, find_function
from attnlab.core.internal import internal_check
from attnlab.core.outcomes import RAISED, CheckFailure, Outcome, ShapeError, is_import_failure, is_signature_failure
from attnlab.core.outputs import Output, join, parts
from attnlab.core.results import CheckResult
from attnlab.core.spec import CaseBudget, CaseSpec, ExerciseSpec, Misconception, PropertySpec
from attnlab.core.status import Status
from attnlab.core.typecheck import check_call

_MEMO: dict[tuple, Any] = {}  # Context.memo: per process, keyed by reference, exercise, seed and key
_MEMO_LOCK = threading.RLock()  # re-entered: a memoised value may be computed from another (a case's inputs)


@dataclass
class Context:
    """Everything a check needs about one exercise and one implementation under test."""

    exercise: ExerciseSpec
    impl: Implementation
    reference: ModuleType | None  # the trusted reference package (absent in a handout)
    signature: Callable  # whose annotations define the expected shapes
    lang: str = "en"
    fresh_seed: int | None = None  # grade.py: draw every random input anew from this seed
    fixtures_dir: Any = None
    deep_guard: bool = True  # see attnlab.core.forbidden: False while a law repeats its calls
    device: str = "cpu"  # where calls run (attnlab.core.devices); outputs come back to checks on the CPU

    def call_many(self, calls: list[dict[str, Any]],
                  budgets: list[CaseBudget | None] | None = None) -> Iterator[Output | Outcome | CheckFailure]:
        """Each call's checked output (shape, dtype, device, inputs untouched), or what it raised, in
        order; `budgets`: each call's memory budget (CaseBudget). The implementation
        decides when the calls are made (see attnlab.core.impl)."""
        ex = self.exercise
        moved = [devices.to_device(args, self.device) for args in calls]
        results = self.impl.call_many(exercise=ex.id, module=ex.module, function=ex.function, calls=moved,
                                      forbidden_calls=ex.forbidden, deep_guard=self.deep_guard,
                                      budgets=budgets if budgets and any(b is not None for b in budgets) else None)
        for args, on_device, result in zip(calls, moved, results, strict=True):
            if isinstance(result, Exception):
                yield result
                continue
            try:
                checked = self._checked(on_device, result)
            except Exception as exc:  # RAISED: the output's fault; anything else the judge's (raised where read)
                checked = exc
            finally:
                if on_device is not args:  # in-place changes made on the device show on the caller's inputs
                    _copy_back(args, on_device)
            yield checked

    def outputs(self, calls: list[dict[str, Any]]) -> Iterator[torch.Tensor]:
        """The checked outputs of `calls`, raising the first failure, as calling them one by one would."""
        for got in self.call_many(calls):
            if isinstance(got, Exception):
                raise got
            yield got

    def call(self, args: dict[str, Any]) -> torch.Tensor:
        return next(self.outputs([args]))

    def vjp(self, args: dict[str, Any], *, wrt: tuple[str, ...], cotangent: Output):
        ex = self.exercise
        on_device = devices.to_device(args, self.device)
        cotangent = join([c.to(self.device) for c in parts(cotangent)], isinstance(cotangent, torch.Tensor))
        output, grads = self.impl.vjp(exercise=ex.id, module=ex.module, function=ex.function, kwargs=on_device,
                                      forbidden_calls=ex.forbidden, wrt=wrt, cotangent=cotangent)
        return to_cpu(output), {name: None if g is None else g.cpu() for name, g in grads.items()}

    def _checked(self, args: dict[str, Any], result: Returned) -> Output:
        out = result.output
        returns = self.exercise.returns
        if len(returns) > 1 and (isinstance(out, torch.Tensor) or len(out) != len(returns)):
            names = ", ".join(r.name for r in returns)
            raise ShapeError("returned_count", function=self.exercise.function, got=len(parts(out)),
                             expected=len(returns), names=names).with_hint(
                Message("hint_returned_count", {"function": self.exercise.function, "names": names}))
        check_call(self.signature, args, out, name=self.exercise.function)
        if result.modified:
            raise CheckFailure("modified", names=", ".join(result.modified)).with_hint(Message("hint_modified", {}))
        returned_inputs = [name for name in result.aliases  # where the spec allows it (dropout in eval mode)
                           if not any(spec.like == name and spec.may_be_input(args) for spec in returns)]
        if returned_inputs:
            raise CheckFailure("alias", name=returned_inputs[0])
        for index, (spec, part) in enumerate(zip(returns, parts(out))):
            self._check_dtype_device(args, part, result.device_of(index), spec.like)
        return to_cpu(out)

    def _check_dtype_device(self, args: dict[str, Any], out: torch.Tensor, device: torch.device,
                            like_name: str | None) -> None:
        like = args.get(like_name)
        if not isinstance(like, torch.Tensor) or not like.is_floating_point():
            return
        if out.dtype != like.dtype:
            # named without "torch.": a NumPy, JAX or MindSpore student reads float64, as their framework says it
            raise CheckFailure("dtype", got=str(out.dtype).removeprefix("torch."),
                               expected=str(like.dtype).removeprefix("torch.")).with_hint(
                Message("hint_dtype", {"name": like_name}))  # one hint, whichever dtype a case has
        if device != like.device:
            raise CheckFailure("device", got=device, expected=like.device)

    def reference_function(self) -> Callable:
        return find_function(self.reference, self.exercise.module, self.exercise.function)

    def reference_call(self, args: dict[str, Any]) -> Output:
        with torch.no_grad():
            return self.reference_function()(**args)

    def stored_misconceptions(self, case: CaseSpec) -> dict[str, torch.Tensor] | None:
        """None: run misconceptions live (reference present); else their outputs saved in the fixture."""
        if self.reference is not None or self.fresh_seed is not None or self.fixtures_dir is None:
            return None
        path = fixtures.fixture_path(self.fixtures_dir, self.exercise, case)
        return fixtures.stored_misconceptions(path, self.exercise) if path.exists() else {}

    def misconception_output(self, case: CaseSpec, misconception: Misconception) -> Output | None:
        """The misconception's output on the case's own inputs (not the submission's copy, which it may
        have changed in place), computed once per process: a case's inputs are fixed by the spec, the
        fixtures and the seed, and every failing submission is compared with the same outputs."""
        key = ("misconception", repr(case), str(self.fixtures_dir), misconception.id)
        return self.memo(key, lambda: run_misconception(self.exercise, misconception, self.case_data(case)[0]),
                         always=True)

    def case_data(self, case: CaseSpec) -> tuple[dict[str, Any], torch.Tensor | None]:
        """Inputs and float64 expected output: the saved fixture, or fresh draws scored by the reference."""
        if self.fresh_seed is None and self.fixtures_dir is not None:
            path = fixtures.fixture_path(self.fixtures_dir, self.exercise, case)
            if path.exists():
                return fixtures.load_case(path, case, self.exercise)
        if self.reference is None:
            raise FileNotFoundError(f"no fixture for {self.exercise.id}/{case.name} and no reference")

        def draw():
            args = inputs.build_args(case, fresh_seed=self.fresh_seed)
            if "value" not in case.checks:
                return args, None
            if devices.draws_random(args):  # the device's random numbers: the reference draws them there too
                return args, to_cpu(self.reference_call(devices.to_device(inputs.to_float64(args), self.device)))
            return args, self.reference_call(inputs.to_float64(args))
        args, expected = self.memo(("case", case.name), draw)
        return inputs.copy_args(args), expected

    def reference_gradients(self, case_name: str, wrt: tuple[str, ...], args: dict[str, Any]):
        """(cotangent, the reference's gradients) for the gradient law on `args` (the case's float64 inputs):
        computed by the reference, else read from the case's fixture; None where neither exists."""
        if self.reference is None:
            case = next(c for c in self.exercise.cases if c.name == case_name)
            path = fixtures.fixture_path(self.fixtures_dir, self.exercise, case) if self.fixtures_dir else None
            if path is None or not path.exists():
                return None
            return fixtures.stored_gradients(path, wrt, len(self.exercise.returns))

        def compute():
            return gradients_of(self.reference_function(), self.exercise, args, wrt)
        return self.memo(("gradient", case_name, wrt), compute)

    def memo(self, key: tuple, compute: Callable[[], Any], *, always: bool = False) -> Any:
        """compute() once per grading run (fresh seed) and exercise, shared by every submission graded in
        this process: fresh inputs and what the reference makes of them depend on the seed alone.
        Callers must not modify what it returns (copy first). Without a fresh seed: computed every time,
        unless `always` (the key names everything the result depends on)."""
        if self.fresh_seed is None and not always:
            return compute()
        full = (id(self.reference), self.exercise.path, self.exercise.id, self.fresh_seed, *key)
        with _MEMO_LOCK:
            if full not in _MEMO:
                _MEMO[full] = compute()
            return _MEMO[full]


def to_cpu(output: Output) -> Output:
    return join([t.cpu() for t in parts(output)], isinstance(output, torch.Tensor))


def _copy_back(args: dict[str, Any], on_device: dict[str, Any]) -> None:
    for name, value in args.items():
        moved = on_device[name]
        if isinstance(value, torch.Tensor) and moved is not value:
            with torch.no_grad():
                value.copy_(moved)


def gradients_of(fn: Callable, exercise: ExerciseSpec, args: dict[str, Any], wrt: tuple[str, ...]):
    """A fixed random cotangent for fn's output(s) on `args`, and the gradients of <output, cotangent>."""
    from attnlab.core.laws import noise

    with torch.no_grad():
        output = fn(**args)
    cotangent = tuple(noise(part, 13 + i) for i, part in enumerate(parts(output)))
    cotangent = cotangent[0] if isinstance(output, torch.Tensor) else cotangent
    _, grads = vjp_call(fn, exercise=exercise.id, function=exercise.function, kwargs=args, forbidden_calls=(),
                        wrt=wrt, cotangent=cotangent, guards=UNGUARDED)
    return cotangent, {name: torch.zeros_like(args[name]) if g is None else g for name, g in grads.items()}


def describe_inputs(args: dict[str, Any]) -> str:
    parts = []
    for name, value in args.items():
        if isinstance(value, torch.Tensor):
            layout = "" if value.is_contiguous() else ", non-contiguous"
            parts.append(f"{name}={tuple(value.shape)} {str(value.dtype).removeprefix('torch.')}{layout}")
        elif isinstance(value, torch.Generator):
            parts.append(f"{name}=Generator(seed={value.initial_seed()})")
        elif isinstance(value, torch.device):
            parts.append(f"{name}={str(value)!r}")
        else:
            parts.append(f"{name}={value!r}")
    return ", ".join(parts)


def _failure_text(ctx: Context, case: str, args: dict[str, Any], detail: Message,
                  diagnosis: str = "") -> str:
    lang = ctx.lang
    lines = [t("case_header", lang, exercise=ctx.exercise.id, case=case),
             "  " + t("inputs", lang, shapes=describe_inputs(args)), "  " + detail.text(lang)]
    if diagnosis:
        lines.append("  " + t("diagnosis", lang, message=diagnosis))
    return "\n".join(lines)


def hint_line(exercise: ExerciseSpec, lang: str, failures: list[CheckResult] = ()) -> str:
    """Shown once under an exercise's failures (pytest: under each failing test): the failures' own hints
    where they have one (advice about what went wrong), else the exercise's general hint."""
    own = list(dict.fromkeys(f.hint for f in failures if not f.passed and f.hint))
    return "\n".join("  " + t("hint", lang, hint=hint) for hint in own or [exercise.hint(lang)])


def _hint(exc: Exception, lang: str) -> str:
    hint = getattr(exc, "hint", None)
    return hint.text(lang) if hint is not None else ""


def run_case(ctx: Context, case: CaseSpec) -> CheckResult:
    return next(run_cases(ctx, [case]))


def run_cases(ctx: Context, cases: list[CaseSpec]) -> Iterator[CheckResult]:
    """Each case's result, in order. Their calls go out together (Context.call_many), so every case's
    inputs are built first; with an in-process implementation each call is made as its result is asked for."""
    data = [ctx.case_data(case) for case in cases]
    budgets = [case.budget for case in cases]
    for case, (args, expected), got in zip(cases, data, ctx.call_many([args for args, _ in data], budgets)):
        try:
            result = _case_result(ctx, case, args, expected, got)
        except Exception as exc:  # the judge's own fault (the output was validated): see attnlab.core.internal
            result = internal_check(ctx.exercise.id, case.name, "case", exc, ctx.lang)
        yield result


def _everywhere(failure: BaseException) -> str | None:
    """The hint for a failure that stops every check whatever its inputs: code that does not import, a function
    whose parameters are not the stub's; None for any other."""
    return "hint_import" if is_import_failure(failure) else "hint_signature" if is_signature_failure(failure) else None


def _import_result(ctx: Context, name: str, failure: Outcome, kind: str, hint: str) -> CheckResult:
    """A check that could not run because of a failure every check meets (_everywhere, whose hint key is
    `hint`): the problem alone (the same for every check it stops, said once; the case's inputs are beside the
    point) and advice to fix it first."""
    return CheckResult(name, False, failure.status, failure.text(ctx.lang), kind=kind, hint=t(hint, ctx.lang))


def _case_result(ctx: Context, case: CaseSpec, args: dict[str, Any], expected: Output | None,
                 got: Output | Outcome | CheckFailure) -> CheckResult:
    if isinstance(got, Exception) and not isinstance(got, RAISED):
        raise got  # validating the output failed in the judge's own code: an internal error (run_cases)
    if hint := _everywhere(got):
        return _import_result(ctx, case.name, got, "case", hint)
    if isinstance(got, RAISED):
        return CheckResult(case.name, False, got.status, _failure_text(ctx, case.name, args, got.message),
                           hint=_hint(got, ctx.lang))
    if expected is None:
        return CheckResult(case.name, True, Status.PASSED, trivial=True)
    worst = outputs_excess(ctx.exercise, got, expected)
    mismatch = None if worst < 1 else compare_outputs(ctx.exercise, got, expected)  # below 1: every part close
    if mismatch is None:
        return CheckResult(case.name, True, Status.PASSED, trivial=constant(expected), excess=worst)
    found = None if not case.diagnosed else diagnose(
        ctx.exercise, args, got, expected=expected, stored=ctx.stored_misconceptions(case),
        live=lambda misconception: ctx.misconception_output(case, misconception))
    text = _failure_text(ctx, case.name, args, mismatch, found.message.get(ctx.lang) if found else "")
    hint = precision.hint(ctx.lang) if found and found.id == precision.FLOAT32_PRECISION else ""
    return CheckResult(case.name, False, Status.FAILED, text, found.id if found else "", hint=hint, excess=worst)


def outputs_excess(exercise: ExerciseSpec, got: Output, expected: Output) -> float:
    """The worst output's compare.excess: how many tolerances away from the expected values."""
    return max(excess(g, e, tolerance_for(exercise.tolerance, g.dtype)) for g, e in zip(parts(got), parts(expected)))


def constant(output: Output) -> bool:
    """Every element of every output equal: a function returning a constant reproduces it."""
    return all(t.numel() == 0 or bool((t == t.flatten()[0]).all()) for t in parts(output))


def compare_outputs(exercise: ExerciseSpec, got: Output, expected: Output) -> Message | None:
    """The first output that differs from its expected value (named when there are several), or None."""
    several = len(exercise.returns) > 1
    for spec, g, e in zip(exercise.returns, parts(got), parts(expected)):
        if g.shape != e.shape:  # a size no tensor argument fixes (e.g. d_model given as an int) came out wrong
            mismatch = Message("shape_mismatch", {"name": exercise.function, "dtype": "", "got": tuple(g.shape),
                                                  "expected": tuple(e.shape), "known": ""})
        else:
            mismatch = compare(g, e, tolerance_for(exercise.tolerance, g.dtype))
        if mismatch is not None:
            return Message("output_named", {"name": spec.name, "detail": mismatch}) if several else mismatch
    return None


def run_property(ctx: Context, prop: PropertySpec) -> CheckResult:
    """Check the spec's law `prop.check` (resolved and validated when the spec loaded) with its params."""
    try:
        prop.law(dataclasses.replace(ctx, deep_guard=False), **prop.params)
    except Outcome as outcome:
        if hint := _everywhere(outcome):
            return _import_result(ctx, prop.name, outcome, "property", hint)
        return CheckResult(prop.name, False, outcome.status, _property_text(ctx, prop.name, outcome.message, law=False),
                           kind="property", hint=_hint(outcome, ctx.lang))
    except CheckFailure as failure:
        return CheckResult(prop.name, False, Status.FAILED, _property_text(ctx, prop.name, failure.message),
                           kind="property", hint=_hint(failure, ctx.lang))
    except Exception as exc:  # the judge's own fault (the outputs were validated): see attnlab.core.internal
        return internal_check(ctx.exercise.id, prop.name, "property", exc, ctx.lang)
    return CheckResult(prop.name, True, Status.PASSED, kind="property")


def _property_text(ctx: Context, name: str, detail: Message, law: bool = True) -> str:
    body = t("property_failed", ctx.lang, name=name, detail=detail) if law else detail.text(ctx.lang)
    return "\n".join([t("property_header", ctx.lang, exercise=ctx.exercise.id, name=name), "  " + body])
