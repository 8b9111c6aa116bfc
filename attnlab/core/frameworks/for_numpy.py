"""NumPy: arguments arrive as `numpy.ndarray` copies of the case's tensors, with their dtype (bfloat16 as
ml_dtypes.bfloat16, the type JAX also uses) and their strides (a transposed input stays transposed); a
`generator` arrives as `numpy.random.Generator` (`numpy.random.default_rng(seed)`, the same seed each time it
is drawn, so a law can repeat a call); a `device` arrives as None (NumPy computes on the CPU only). NumPy
has no autograd: the gradient law is not applicable. Forbidden shortcuts (scipy.special.softmax, ...) are
caught by swapping (swap.py).

NumPy's promotion rules differ from torch's: `x / np.sqrt(d)` turns float32 into float64, and matmul of
bfloat16 arrays (like any bfloat16 array meeting a Python float) gives float32. The dtype check holds NumPy
code to the input's dtype like any other, so its references end with `.astype(x.dtype)` where an
operation may promote.

A returned array is copied before the checks see it. A view of an input (`x.reshape(...)`, `x[...]`,
`x.astype(x.dtype, copy=False)`) counts as returning the input: NumPy shares memory where torch would
often have copied, and the caller may write to the result. A numpy.ma.MaskedArray is read with NaN where it
is masked (a masked entry has no value); a dtype torch cannot hold (object, str, longdouble, ...) is the
student's error, named in NumPy's terms.
"""

import importlib.util
import sys
from typing import Any

import numpy as np
import torch

from attnlab.core import imports
from attnlab.core.forbidden import resolve
from attnlab.core.frames import is_student_frame
from attnlab.core.frameworks.base import Adapter, numpy_to_tensor, tensor_to_numpy
from attnlab.core.frameworks.line_memory import line_budget
from attnlab.core.frameworks.swap import SwapGuard
from attnlab.core.outcomes import SubmissionError
from attnlab.core.outputs import convert_output

# the NumPy dtypes (by kind and size) that numpy_to_tensor can hand to torch; bfloat16 is handled by name
# (uint8 only: torch before 2.3 has no wider unsigned integers)
_READABLE_KINDS = {"f": (2, 4, 8), "i": (1, 2, 4, 8), "u": (1,), "b": (1,), "c": (8, 16)}


class NumpyAdapter(Adapter):
    name = "numpy"
    module = "numpy"
    array_type = "numpy.ndarray"
    generator_kind = "numpy.random.Generator"
    prefixes = ("numpy.", "scipy.")
    imports = ("numpy", "ml_dtypes")
    devices = ("cpu",)

    def __init__(self):
        self._guard = SwapGuard(("numpy", "scipy"))
        self._not_installed: set[str] = set()  # top-level packages of forbidden names found missing here

    def warm(self) -> None:
        """NumPy, and ml_dtypes for bfloat16 cases, imported once in the forkserver (neither starts a thread)."""
        import ml_dtypes  # noqa: F401
        import numpy  # noqa: F401

        self._guard.prime()  # the guard's index of NumPy's modules, inherited by every runner

    def array(self, tensor):
        return tensor_to_numpy(tensor)

    def generator(self, seed: int) -> np.random.Generator:
        return np.random.default_rng(seed)

    def to_torch(self, value: Any, function: str):
        return convert_output(value, function, is_array=self.is_array,
                              convert=lambda v: self._readable(v, function), expected=self.array_type)

    def _readable(self, value: np.ndarray, function: str) -> torch.Tensor:
        """A torch copy of a returned array, or the student's error if torch cannot hold its dtype."""
        if isinstance(value, np.ma.MaskedArray):
            floating = value.dtype.kind == "f" or value.dtype.name == "bfloat16"
            value = value.filled(np.nan) if floating else value.filled()
        array = np.asarray(value)  # a subclass (np.matrix) as the plain array it holds
        dtype = array.dtype
        if dtype.name != "bfloat16" and dtype.itemsize not in _READABLE_KINDS.get(dtype.kind, ()):
            raise SubmissionError("unreadable_dtype", function=function, array_type=self.array_type,
                                  dtype=dtype.name)
        return numpy_to_tensor(array)

    def is_array(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def budget(self, exercise: str, limit_mb: float | None):
        """NumPy's buffers are traced by tracemalloc: the budget holds each line of the student's code to
        what it makes at once (line_memory.py)."""
        return line_budget(exercise, limit_mb, self.name, is_student_frame)

    def numpy_of(self, value: Any) -> np.ndarray:
        return value

    def aliases(self, converted: dict[str, Any], raw: Any) -> list[str]:
        """Inputs returned as an output, or as a view of one (`x.reshape(...)`, `x[...]`): NumPy arrays
        share memory where torch would have made a new tensor, and a caller may write to the result."""
        outputs = raw if isinstance(raw, (tuple, list)) else (raw,)
        return [name for name, v in converted.items() if self.is_array(v) and v.size and any(
            self.is_array(o) and np.may_share_memory(o, v) for o in outputs)]

    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True):
        owned = tuple(n for n in names if self.owns(n))
        self._import_reachable(owned)
        return self._guard.guard(exercise, owned)

    def _import_reachable(self, names: tuple[str, ...]) -> None:
        """Import the forbidden functions that student code may import but has not yet (scipy.special where
        the course lists scipy, or no import list holds: the mutation corpus, a notebook). The guard swaps
        what is loaded; without this, `from scipy.special import softmax` inside the function would meet
        the real softmax on its first call. Where scipy may not be imported, nothing is loaded."""
        for name in names:
            top = name.split(".")[0]
            if top in self._not_installed or not imports.may_import(top):
                continue
            if top not in sys.modules and importlib.util.find_spec(top) is None:
                self._not_installed.add(top)
                continue
            try:
                resolve(name)  # imports what it names (a dictionary lookup once it is loaded)
            except ValueError:  # this version lacks it: nothing to call (tests/unit/test_for_numpy.py)
                continue


ADAPTER = NumpyAdapter()
