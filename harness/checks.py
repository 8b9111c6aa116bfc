"""The checks, written once: build a case's inputs, call the implementation, check shape, dtype, device,
inputs unchanged, values, then diagnose. Used in-process by the pytest plugin and by the grader's judge.
"""

import dataclasses
import threading
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Iterator

import torch

from harness import fixtures, inputs
from harness.compare import compare, tolerance_for
from harness.diagnose import diagnose
from harness.impl import Implementation
from harness.messages import t
from harness.outcomes import CheckFailure, Outcome, SubmissionError
from harness.results import CheckResult
from harness.spec import CaseSpec, ExerciseSpec
from harness.typecheck import check_call

_MEMO: dict[tuple, Any] = {}  # Context.memo: per process, keyed by reference, exercise, seed and key
_MEMO_LOCK = threading.Lock()


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
    deep_guard: bool = True  # see harness.forbidden: False while a law repeats its calls

    def call(self, args: dict[str, Any]) -> torch.Tensor:
        """Call the implementation and apply the checks every call gets (shape, dtype, device, purity).
        Cases run under the deep forbidden-call guard; laws (deep_guard False) under its function layer."""
        if hasattr(self.impl, "call_many"):  # the grader's runner, which reports what a call changed
            return next(self.outputs([args]))
        ex = self.exercise
        before = inputs.snapshot(args)
        out = self.impl.call(exercise=ex.id, module=ex.module, function=ex.function, kwargs=args,
                             forbidden_calls=ex.forbidden, deep_guard=self.deep_guard)
        return self._checked(args, out, inputs.modified(args, before))

    def call_many(self, calls: list[dict[str, Any]]) -> Iterator[torch.Tensor | Outcome | CheckFailure]:
        """call() each of `calls` in order, yielding its checked output or the exception it raised. An
        implementation with call_many (the grader's runner) gets them all in one request; otherwise they
        are made one by one, as the caller asks for the next."""
        many = getattr(self.impl, "call_many", None)
        if many is None:  # in-process: call() snapshots the inputs around each call
            for args in calls:
                try:
                    yield self.call(args)
                except (Outcome, CheckFailure) as exc:
                    yield exc
            return
        ex = self.exercise
        results = many(exercise=ex.id, module=ex.module, function=ex.function, calls=calls,
                       forbidden_calls=ex.forbidden, deep_guard=self.deep_guard)
        for args, result in zip(calls, results, strict=True):
            if isinstance(result, Exception):
                yield result
                continue
            try:
                yield self._checked(args, *result)
            except (Outcome, CheckFailure) as exc:
                yield exc

    def outputs(self, calls: list[dict[str, Any]]) -> Iterator[torch.Tensor]:
        """The checked outputs of `calls`, raising the first failure, as calling them one by one would."""
        for got in self.call_many(calls):
            if isinstance(got, Exception):
                raise got
            yield got

    def _checked(self, args: dict[str, Any], out: torch.Tensor, changed: list[str] | tuple[str, ...]) -> torch.Tensor:
        check_call(self.signature, args, out, name=self.exercise.function)
        if changed:
            raise CheckFailure(t("modified", self.lang, names=", ".join(changed)))
        for name, value in args.items():
            if isinstance(value, torch.Tensor) and out.data_ptr() == value.data_ptr() and out.numel():
                raise CheckFailure(t("alias", self.lang, name=name))
        self._check_dtype_device(args, out)
        return out

    def _check_dtype_device(self, args: dict[str, Any], out: torch.Tensor) -> None:
        # masks may be float32 while the data is float64: the data's dtype is the one to keep
        floats = [v for k, v in args.items() if isinstance(v, torch.Tensor) and v.is_floating_point()
                  and k != "mask"]
        if floats and out.dtype != floats[0].dtype:
            raise CheckFailure(t("dtype", self.lang, got=out.dtype, expected=floats[0].dtype))
        if floats and out.device != floats[0].device:
            raise CheckFailure(t("device", self.lang, got=out.device, expected=floats[0].device))

    def reference_call(self, args: dict[str, Any]) -> torch.Tensor:
        fn = getattr(self.reference, self.exercise.function)
        with torch.no_grad():
            return fn(**args)

    def stored_misconceptions(self, case: CaseSpec) -> dict[str, torch.Tensor] | None:
        """None: run misconceptions live (reference present); else their outputs saved in the fixture."""
        if self.reference is not None or self.fresh_seed is not None or self.fixtures_dir is None:
            return None
        path = fixtures.fixture_path(self.fixtures_dir, self.exercise, case)
        return fixtures.stored_misconceptions(path) if path.exists() else {}

    def case_data(self, case: CaseSpec) -> tuple[dict[str, Any], torch.Tensor | None]:
        """Inputs and float64 expected output: the saved fixture, or fresh draws scored by the reference."""
        if self.fresh_seed is None and self.fixtures_dir is not None:
            path = fixtures.fixture_path(self.fixtures_dir, self.exercise, case)
            if path.exists():
                return fixtures.load_case(path, case)
        if self.reference is None:
            raise FileNotFoundError(f"no fixture for {self.exercise.id}/{case.name} and no reference")

        def draw():
            args = inputs.build_args(case, fresh_seed=self.fresh_seed)
            return args, self.reference_call(inputs.to_float64(args)) if "value" in case.checks else None
        args, expected = self.memo(("case", case.name), draw)
        return inputs.copy_args(args), expected

    def memo(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """compute() once per grading run (fresh seed) and exercise, shared by every submission graded in
        this process: fresh inputs and what the reference makes of them depend on the seed alone.
        Callers must not modify what it returns (copy first). Without a fresh seed: computed every time."""
        if self.fresh_seed is None:
            return compute()
        full = (id(self.reference), self.exercise.path, self.exercise.id, self.fresh_seed, *key)
        with _MEMO_LOCK:
            if full not in _MEMO:
                _MEMO[full] = compute()
            return _MEMO[full]


def describe_inputs(args: dict[str, Any]) -> str:
    parts = []
    for name, value in args.items():
        if isinstance(value, torch.Tensor):
            layout = "" if value.is_contiguous() else ", non-contiguous"
            parts.append(f"{name}={tuple(value.shape)} {str(value.dtype).removeprefix('torch.')}{layout}")
        elif isinstance(value, torch.Generator):
            parts.append(f"{name}=Generator(seed={value.initial_seed()})")
        else:
            parts.append(f"{name}={value!r}")
    return ", ".join(parts)


def _failure_text(ctx: Context, case: str, args: dict[str, Any], detail: str, diagnosis: str = "") -> str:
    lang = ctx.lang
    lines = [t("case_header", lang, exercise=ctx.exercise.id, case=case),
             "  " + t("inputs", lang, shapes=describe_inputs(args)), "  " + detail]
    if diagnosis:
        lines.append("  " + t("diagnosis", lang, message=diagnosis))
    return "\n".join(lines)


def hint_line(exercise: ExerciseSpec, lang: str) -> str:
    """Shown once under an exercise's failures (pytest: under each failing test)."""
    return "  " + t("hint", lang, hint=exercise.hint(lang))


def run_case(ctx: Context, case: CaseSpec) -> CheckResult:
    return next(run_cases(ctx, [case]))


def run_cases(ctx: Context, cases: list[CaseSpec]) -> Iterator[CheckResult]:
    """Each case's result, in order. Their calls go out together (Context.call_many), so every case's
    inputs are built first; with an in-process implementation each call is made as its result is asked for."""
    data = [ctx.case_data(case) for case in cases]
    for case, (args, expected), got in zip(cases, data, ctx.call_many([args for args, _ in data])):
        yield _case_result(ctx, case, args, expected, got)


def _case_result(ctx: Context, case: CaseSpec, args: dict[str, Any], expected: torch.Tensor | None,
                 got: torch.Tensor | Outcome | CheckFailure) -> CheckResult:
    if isinstance(got, Outcome):
        return CheckResult(case.name, False, got.status, _failure_text(ctx, case.name, args, str(got)))
    if isinstance(got, CheckFailure):
        return CheckResult(case.name, False, "failed", _failure_text(ctx, case.name, args, str(got)))
    if expected is None:
        return CheckResult(case.name, True, "passed")
    tol = tolerance_for(ctx.exercise.tolerance, got.dtype)
    mismatch = compare(got, expected, tol, lang=ctx.lang)
    if mismatch is None:
        return CheckResult(case.name, True, "passed")
    found = diagnose(ctx.exercise, args, got, tol, stored=ctx.stored_misconceptions(case))
    text = _failure_text(ctx, case.name, args, mismatch.text, found.message.get(ctx.lang) if found else "")
    return CheckResult(case.name, False, "failed", text, found.id if found else "")


def run_property(ctx: Context, prop) -> CheckResult:
    from harness.properties import PROPERTIES

    check = PROPERTIES.get(prop.check)
    if check is None:
        raise LookupError(f"{ctx.exercise.path}: property check {prop.check!r} is not registered "
                          f"(known: {', '.join(sorted(PROPERTIES))})")
    try:
        check(dataclasses.replace(ctx, deep_guard=False), **prop.params)
    except Outcome as outcome:
        return CheckResult(prop.name, False, outcome.status, _property_text(ctx, prop.name, str(outcome), law=False),
                           kind="property")
    except CheckFailure as failure:
        return CheckResult(prop.name, False, "failed", _property_text(ctx, prop.name, str(failure)),
                           kind="property")
    return CheckResult(prop.name, True, "passed", kind="property")


def _property_text(ctx: Context, name: str, detail: str, law: bool = True) -> str:
    return "\n".join([t("property_header", ctx.lang, exercise=ctx.exercise.id, name=name),
                      "  " + (t("property_failed", ctx.lang, name=name, detail=detail) if law else detail)])


__all__ = ["Context", "run_case", "run_cases", "run_property", "SubmissionError"]
