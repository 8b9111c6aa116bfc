"""What a run_* function returns: one tensor, or a tuple of tensors for exercises whose spec lists several
`returns:` (kv_cache_attention: output and the two extended caches; flash_attention: O and L).

Everything that handles outputs (calls, the runner's frames, comparisons, diagnosis, fixtures, gradients)
goes through `parts` and `join`, so one-output and several-output exercises share one code path.
"""

from typing import Any

import torch

from attnlab.core.i18n import Message
from attnlab.core.outcomes import SubmissionError

Output = torch.Tensor | tuple[torch.Tensor, ...]
MAX_OUTPUTS = 8


def as_output(value: Any, function: str) -> Output:
    """The plain tensor(s) a call returned; tensor subclasses lose their overrides (a subclass could lie in
    __eq__), a list becomes a tuple. Anything else is the student's error, and so is a tensor without values
    to read (sparse, meta, quantized)."""
    return convert_output(value, function, is_array=lambda v: isinstance(v, torch.Tensor),
                          convert=lambda v: _readable(v, function).as_subclass(torch.Tensor), expected="torch.Tensor")


def _readable(tensor: torch.Tensor, function: str) -> torch.Tensor:
    kind = ("layout_meta" if tensor.is_meta else "layout_quantized" if tensor.is_quantized
            else "layout_sparse" if tensor.layout != torch.strided else None)
    if kind is not None:
        raise SubmissionError("output_layout", function=function, kind=Message(kind))
    return tensor


def convert_output(value: Any, function: str, *, is_array, convert, expected: str) -> Output:
    """One array or a tuple (or list) of up to MAX_OUTPUTS arrays of some framework (`is_array`), each made a
    torch tensor by `convert`; anything else is the student's error, naming the `expected` array type."""
    if is_array(value):
        return convert(value)
    if isinstance(value, (tuple, list)) and 0 < len(value) <= MAX_OUTPUTS and all(is_array(v) for v in value):
        return tuple(convert(v) for v in value)
    error = SubmissionError("not_a_tensor", function=function, got=_kind(value), expected=expected)
    if value is None:  # the most common beginner's slip: the result computed, the `return` forgotten
        error.with_hint(Message("hint_returned_none", {"function": function}))
    else:  # another framework's array, a list, a number: not the exercise's hint, which is about values
        error.with_hint(Message("hint_not_a_tensor", {"function": function, "expected": expected}))
    raise error


def _kind(value: Any) -> str:
    if isinstance(value, (tuple, list)):
        return f"{type(value).__name__} of {', '.join(type(v).__name__ for v in value[:MAX_OUTPUTS])}"
    return type(value).__name__


def parts(output: Output) -> tuple[torch.Tensor, ...]:
    return (output,) if isinstance(output, torch.Tensor) else tuple(output)


def join(tensors: list[torch.Tensor] | tuple[torch.Tensor, ...], single: bool) -> Output:
    """Back from parts: the one tensor when the function returned a tensor, else the tuple."""
    return tensors[0] if single else tuple(tensors)


def detach(output: Output) -> Output:
    return join([t.detach() for t in parts(output)], isinstance(output, torch.Tensor))


def to_float64(output: Output) -> Output:
    return join([t.detach().to(torch.float64) for t in parts(output)], isinstance(output, torch.Tensor))
