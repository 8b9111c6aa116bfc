"""Hostile outputs for the fuzz test of the judge (tests/unit/test_hostile_outputs.py).

`HostileImpl` is a real implementation, not a mock of the judge: its run_* functions return what a transform
makes of the reference's output for the same call (the wrong shape, dtype, count, NaN, inf, huge values,
nothing at all, ...), as the framework's own arrays, through the framework's adapter exactly as student
code is called (attnlab.core.impl.call_checked). The reference's outputs are computed once per call
(memoised by the call's inputs), so fuzzing every check with dozens of transforms stays cheap.
"""

import functools
import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import torch

from attnlab.core import frameworks
from attnlab.core.calls import UNGUARDED, vjp_call
from attnlab.core.frameworks.base import Adapter
from attnlab.core.impl import InProcessImpl, call_checked, find_function
from attnlab.core.outcomes import Outcome
from attnlab.core.outputs import Output, parts

_REFERENCE_OUTPUTS: dict[tuple, Any] = {}


def _fingerprint(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        data = value.detach().cpu().contiguous()
        raw = data.view(torch.int16).numpy().tobytes() if data.dtype == torch.bfloat16 else data.numpy().tobytes()
        return "tensor", str(data.dtype), tuple(data.shape), hashlib.sha1(raw).hexdigest()
    if isinstance(value, torch.Generator):
        return "generator", value.initial_seed()
    return "value", repr(value)


def reference_output(reference, module: str, function: str, kwargs: dict[str, Any]) -> Output:
    """What the reference returns for `kwargs` (a generator drawn afresh from its seed), once per process."""
    key = (function, tuple((name, _fingerprint(v)) for name, v in sorted(kwargs.items())))
    if key not in _REFERENCE_OUTPUTS:
        fresh = {k: torch.Generator().manual_seed(v.initial_seed()) if isinstance(v, torch.Generator)
                 else v.clone() if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
        with torch.no_grad():
            _REFERENCE_OUTPUTS[key] = find_function(reference, module, function)(**fresh)
    return _REFERENCE_OUTPUTS[key]


# -- transforms of one tensor (each: tensor -> a hostile tensor, or None where it does not apply) ------------
def _last_dim(t: torch.Tensor, size: int) -> torch.Tensor | None:
    if t.dim() == 0:
        return None
    if size <= t.shape[-1]:
        return t[..., :size].clone()
    return torch.cat([t, t[..., :1].expand(*t.shape[:-1], size - t.shape[-1])], dim=-1)


def _one(t: torch.Tensor, value: float) -> torch.Tensor | None:
    if t.numel() == 0 or not t.is_floating_point():
        return None
    out = t.clone(memory_format=torch.contiguous_format)
    out.view(-1)[out.numel() // 2] = value
    return out


def _filled(t: torch.Tensor, value: float) -> torch.Tensor | None:
    return torch.full_like(t, value) if t.is_floating_point() else None


TENSOR_TRANSFORMS: dict[str, Callable[[torch.Tensor], torch.Tensor | None]] = {
    "no_columns": lambda t: _last_dim(t, 0),
    "one_column_less": lambda t: _last_dim(t, t.shape[-1] - 1) if t.dim() and t.shape[-1] > 1 else None,
    "one_column_more": lambda t: _last_dim(t, t.shape[-1] + 1) if t.dim() else None,
    "transposed": lambda t: t.transpose(-1, -2).clone() if t.dim() >= 2 and t.shape[-1] != t.shape[-2] else None,
    "flattened": lambda t: t.reshape(-1).clone() if t.dim() != 1 else None,
    "extra_leading_dim": lambda t: t[None].clone(),
    "leading_dim_dropped": lambda t: t[0].clone() if t.dim() and t.shape[0] else None,
    "zero_dim": lambda t: t.reshape(-1)[0].clone() if t.numel() else torch.tensor(0.0),
    "empty": lambda t: t.new_empty(0),
    "all_nan": lambda t: _filled(t, float("nan")),
    "one_nan": lambda t: _one(t, float("nan")),
    "one_inf": lambda t: _one(t, float("inf")),
    "one_minus_inf": lambda t: _one(t, float("-inf")),
    "all_inf": lambda t: _filled(t, float("inf")),
    "huge": lambda t: _filled(t, float(torch.finfo(t.dtype).max)) if t.is_floating_point() else None,
    "huge_one": lambda t: _one(t, float(torch.finfo(t.dtype).max) if t.is_floating_point() else 0.0),
    "tiny": lambda t: _filled(t, float(torch.finfo(t.dtype).tiny)) if t.is_floating_point() else None,
    "zeros": lambda t: torch.zeros_like(t),
    "negated": lambda t: -t if t.is_floating_point() else None,
    "as_float64": lambda t: t.to(torch.float64) if t.dtype != torch.float64 else t.to(torch.float32),
    "as_float16": lambda t: t.to(torch.float16),
    "as_bfloat16": lambda t: t.to(torch.bfloat16),
    "as_int64": lambda t: t.nan_to_num().to(torch.int64) if t.is_floating_point() else t.to(torch.int64),
    "as_int32": lambda t: t.nan_to_num().to(torch.int32) if t.is_floating_point() else t.to(torch.int32),
    "as_uint8": lambda t: t.nan_to_num().abs().clamp(0, 255).to(torch.uint8),
    "as_bool": lambda t: t != 0,
    "as_float_from_bool": lambda t: t.to(torch.float32) if t.dtype == torch.bool else None,
    "as_complex": lambda t: t.to(torch.complex64) if t.dtype != torch.bfloat16 else None,
    "huge_shape": lambda t: t.new_zeros(4097, 3) if t.dtype != torch.bool else None,
}


def _replace_part(output: Output, index: int, make: Callable[[torch.Tensor], Any]) -> Any:
    """`output` with its part `index` (of its parts) replaced by make(part); None where make gives None."""
    pieces = list(parts(output))
    new = make(pieces[index])
    if new is None:
        return None
    if isinstance(output, torch.Tensor):
        return new
    pieces[index] = new
    return tuple(pieces)


def _structural(output: Output) -> dict[str, Callable[[], Any]]:
    """Wrong counts and types: what a call may return instead of its tensor(s)."""
    pieces = parts(output)
    first = pieces[0]
    found = {"none": lambda: None, "string": lambda: "not a tensor", "object": object, "python_float": lambda: 1.5,
             "python_int": lambda: 3, "dict": lambda: {"output": first}, "list_of_floats": lambda: [1.0, 2.0],
             "nested_tuple": lambda: ((first,),), "tuple_with_none": lambda: (*pieces[:-1], None),
             "one_too_many": lambda: (*pieces, first), "as_list": lambda: list(pieces), "first_only": lambda: first,
             "empty_tuple": tuple, "nine_outputs": lambda: (first,) * 9, "generator": lambda: (p for p in pieces),
             "nested_list": lambda: [first.tolist()]}
    if len(pieces) > 1:
        found["one_too_few"] = lambda: pieces[:-1]
    return found


def variant_names(count: int) -> list[str]:
    """The hostile variants of an output of `count` tensors: a transform of the first tensor, and of the last
    where there are several."""
    names = [*_structural((torch.zeros(1),) * count), *TENSOR_TRANSFORMS]
    return names + [f"{name}@last" for name in TENSOR_TRANSFORMS] if count > 1 else names


def hostile_output(variant: str, output: Output) -> Any:
    """The `variant` of the reference's `output` (a torch-level value to return), or None where it does not
    apply (e.g. NaN in an integer output): then the call returns the correct output."""
    structural = _structural(output)
    if variant in structural:
        return structural[variant]()
    name, _, last = variant.partition("@")
    index = len(parts(output)) - 1 if last else 0
    return _replace_part(output, index, TENSOR_TRANSFORMS[name])


def native(value: Any, adapter) -> Any:
    """`value` with every torch tensor in it made the framework's own array (as student code returns them);
    a dtype the framework cannot hold raises (that variant does not apply there)."""
    if isinstance(value, torch.Tensor):
        return value if adapter is frameworks.default() else adapter.array(value)  # the judge's own arrays
    if isinstance(value, tuple):
        return tuple(native(v, adapter) for v in value)
    if isinstance(value, list):
        return [native(v, adapter) for v in value]
    if isinstance(value, dict):
        return {k: native(v, adapter) for k, v in value.items()}
    return value


def _numpy_extras() -> dict[str, Callable[[np.ndarray], Any]]:
    return {"object_array": lambda a: a.astype(object), "string_array": lambda a: a.astype(str),
            "masked_all": lambda a: np.ma.masked_all(a.shape), "structured": lambda a: np.zeros(a.shape, "f8,f8"),
            "matrix": lambda a: np.asmatrix(a.reshape(a.shape[0], -1)) if a.ndim >= 1 else np.asmatrix(a),
            "longdouble": lambda a: a.astype(np.longdouble), "datetime": lambda a: np.zeros(a.shape, "datetime64[s]")}


def _from_numpy(make: Callable[[np.ndarray], Any], tensor: torch.Tensor) -> Any:
    return make(tensor.detach().to(torch.float64).numpy())


NATIVE_EXTRAS: dict[str, dict[str, Callable[[torch.Tensor], Any]]] = {
    # hostile values only a framework can make, from the first output (a tensor)
    "torch": {"meta_tensor": lambda t: torch.empty(t.shape, device="meta"),
              "sparse_tensor": lambda t: t.to_sparse() if t.dim() else None,
              "requires_grad": lambda t: t.detach().double().requires_grad_(True),
              "subclass": lambda t: t.as_subclass(_Liar)},
    "numpy": {name: functools.partial(_from_numpy, make) for name, make in _numpy_extras().items()},
    "jax": {"prng_key": lambda t: __import__("jax").random.key(0), "numpy_instead": lambda t: t.detach().numpy()},
    "mindspore": {"numpy_instead": lambda t: t.detach().numpy()},
}


class _Liar(torch.Tensor):
    """A tensor subclass that claims to equal everything (as_output strips it)."""

    def __eq__(self, other):  # noqa: D105
        return True

    __hash__ = torch.Tensor.__hash__


def _returning(value: Any, **_: Any) -> Any:
    return value


class HostileImpl(InProcessImpl):
    """Answers every call with `variant` of the reference's output for that call, in `framework`'s arrays.
    Calls go through the framework's adapter (call_checked) like any student's."""

    def __init__(self, framework: str, variant: str, reference):
        super().__init__(Path("."), name=f"hostile-{variant}", adapter=frameworks.adapter(framework))
        self.framework = framework
        self.variant, self.reference = variant, reference
        self.skipped: set[str] = set()  # functions for which the variant does not apply in this framework

    def hostile(self, module: str, function: str, kwargs: dict[str, Any]) -> Any:
        correct = reference_output(self.reference, module, function, kwargs)
        adapter = self.adapter
        extra = NATIVE_EXTRAS[self.framework].get(self.variant)
        value = extra(parts(correct)[0]) if extra else native(hostile_output(self.variant, correct), adapter)
        if value is None and self.variant != "none":
            self.skipped.add(function)
            return native(correct, adapter)
        return value

    def call_many(self, *, exercise, module, function, calls, forbidden_calls, deep_guard=True, budgets=None):
        self.adapter.prepare()
        for kwargs in calls:
            try:
                value = self.hostile(module, function, kwargs)
            except (TypeError, ValueError, RuntimeError):  # a dtype this framework cannot hold: not this variant
                self.skipped.add(function)
                value = native(reference_output(self.reference, module, function, kwargs), self.adapter)
            try:
                yield call_checked(functools.partial(_returning, value), exercise=exercise, function=function,
                                   kwargs=kwargs, forbidden_calls=(), deep_guard=False, adapter=self.adapter)
            except Outcome as outcome:
                yield outcome

    def vjp(self, *, exercise, module, function, kwargs, forbidden_calls, wrt, cotangent):
        """The reference's output and gradients, the gradients made hostile by the variant's tensor transform
        (a runner sends tensors, or no gradient at all: other values cannot arrive)."""
        adapter = self.adapter
        if type(adapter).vjp is Adapter.vjp:  # no gradients in this framework: the law is not applicable
            return adapter.vjp(None, exercise=exercise, function=function, kwargs=kwargs,
                               forbidden_calls=forbidden_calls, wrt=wrt, cotangent=cotangent)
        fn = find_function(self.reference, module, function)
        output, grads = vjp_call(fn, exercise=exercise, function=function, kwargs=kwargs, forbidden_calls=(),
                                 wrt=wrt, cotangent=cotangent, guards=UNGUARDED)
        transform = TENSOR_TRANSFORMS.get(self.variant.removesuffix("@last"))
        if self.variant == "none":
            return output, {name: None for name in grads}
        if transform is None:
            return output, grads
        return output, {name: g if g is None or (new := transform(g)) is None else new for name, g in grads.items()}
