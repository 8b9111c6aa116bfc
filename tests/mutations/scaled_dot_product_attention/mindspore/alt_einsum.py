"""The einsum style: `ops.einsum("...qd,...kd->...qk", Q, K)` for the scores and
`ops.einsum("...qk,...kv->...qv", weights, V)` for the output, with masked scores set to -inf by
`ops.masked_fill`. Correct where MindSpore has the kernel (ops.einsum: GPU only): the subscripts contract
d_k and the keys and keep every leading dim. Graded on the CPU it raises: MindSpore 2.10 has no CPU kernel
for Einsum (docs/mindspore.md), and the student sees "Unsupported op [Einsum] on CPU" on every case, locally
as at grading."""

import mindspore
from mindspore import nn, ops

PENDING = ("MindSpore 2.10 has no CPU kernel for Einsum ('Unsupported op [Einsum] on CPU') and MindSpore "
           "submissions are graded on the CPU: correct einsum code raises")


def run_scaled_dot_product_attention(Q, K, V, mask=None):
    scores = ops.einsum("...qd,...kd->...qk", Q, K) / Q.shape[-1] ** 0.5
    if mask is not None:
        scores = ops.masked_fill(scores, ~mask.astype(mindspore.bool_), float("-inf"))
    weights = nn.Softmax(axis=-1)(scores)
    return ops.einsum("...qk,...kv->...qv", weights, V)
