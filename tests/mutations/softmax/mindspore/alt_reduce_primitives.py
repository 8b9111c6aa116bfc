"""Seed 001 §3.5.1's primitive style: operator instances `ops.ReduceMax(keep_dims=True)`,
`ops.ReduceSum(keep_dims=True)` and `ops.Exp()` built first, then called with the axis. Correct: the maximum
and the sum are both taken along `dim` with the axis kept, so every slice is shifted by its own maximum
(exp never overflows) and divided by its own sum; negative axes count from the end as in `dim`."""

from mindspore import ops


def run_softmax(in_features, dim):
    reduce_max = ops.ReduceMax(keep_dims=True)
    reduce_sum = ops.ReduceSum(keep_dims=True)
    exp = ops.Exp()
    exps = exp(in_features - reduce_max(in_features, dim))
    return exps / reduce_sum(exps, dim)
