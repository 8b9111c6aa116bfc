"""NumPy: arguments arrive as `numpy.ndarray` copies of the case's tensors, with their dtype (bfloat16 as
ml_dtypes.bfloat16, the type JAX also uses) and their strides (a transposed input stays transposed); a
`generator` arrives as `numpy.random.Generator` (`numpy.random.default_rng(seed)`, the same seed each time it
is drawn, so a law can repeat a call). NumPy computes on the CPU only and has no autograd: the gradient law
is not applicable. Forbidden shortcuts (scipy.special.softmax, ...) are caught by swapping (swap.py).

NumPy's promotion rules differ from torch's: `x / np.sqrt(d)` turns float32 into float64, and matmul of
bfloat16 arrays gives float32. The dtype check holds NumPy code to the input's dtype like any other, so
its references end with `.astype(x.dtype)` where an operation may promote.
"""

from typing import Any

import numpy as np

from attnlab.core.frameworks.base import Adapter, numpy_to_tensor, tensor_to_numpy
from attnlab.core.frameworks.swap import SwapGuard
from attnlab.core.outputs import convert_output


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

    def array(self, tensor):
        return tensor_to_numpy(tensor)

    def generator(self, seed: int) -> np.random.Generator:
        return np.random.default_rng(seed)

    def to_torch(self, value: Any, function: str):
        return convert_output(value, function, is_array=self.is_array,
                              convert=lambda v: numpy_to_tensor(np.asarray(v)), expected=self.array_type)

    def is_array(self, value: Any) -> bool:
        return isinstance(value, np.ndarray)

    def numpy_of(self, value: Any) -> np.ndarray:
        return value

    def aliases(self, converted: dict[str, Any], raw: Any) -> list[str]:
        """Inputs returned as an output, or as a view of one (`x.reshape(...)`, `x[...]`): NumPy arrays
        share memory where torch would have made a new tensor, and a caller may write to the result."""
        outputs = raw if isinstance(raw, (tuple, list)) else (raw,)
        return [name for name, v in converted.items() if self.is_array(v) and v.size and any(
            self.is_array(o) and np.may_share_memory(o, v) for o in outputs)]

    def guard(self, exercise: str, names: tuple[str, ...], *, deep: bool = True):
        return self._guard.guard(exercise, tuple(n for n in names if self.owns(n)))


ADAPTER = NumpyAdapter()
