"""The log-domain route: softmax(x) = exp(x - logsumexp(x)), with `ops.logsumexp(x, dim, keep_dims=True)`
and a moved axis (`ops.moveaxis` puts `dim` last, the answer is moved back). Correct: MindSpore's
logsumexp subtracts the maximum before exponentiating, so large scores do not overflow, and a row's
weights are exp of its scores minus one constant, which sums to 1."""

from mindspore import ops


def run_softmax(in_features, dim):
    x = ops.moveaxis(in_features, dim, -1)  # (..., n): the axis to normalise is last
    log_norm = ops.logsumexp(x, -1, True)  # (..., 1)
    return ops.moveaxis(ops.exp(x - log_norm), -1, dim)
