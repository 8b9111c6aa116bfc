"""The mask built in NumPy and handed to MindSpore: `mindspore.Tensor(np.tril(np.ones((n, n), dtype=bool)))`.
Correct: np.tril keeps the diagonal and everything below it, True where key j <= query i, and the Tensor
keeps NumPy's bool dtype."""

import numpy as np
from mindspore import Tensor


def run_causal_mask(seq_len, device=None):
    return Tensor(np.tril(np.ones((seq_len, seq_len), dtype=bool)))
