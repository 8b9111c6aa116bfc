"""Seed 001 §3.5.1 normalises with `ops.ReduceSum(keep_dims=True)` along -1; the student copies that line, so
the sum runs over the last axis whatever `dim` says (the max is taken along `dim`)."""

from mindspore import ops

DIAGNOSIS = None

reduce_sum = ops.ReduceSum(keep_dims=True)


def run_softmax(in_features, dim):
    exps = ops.exp(in_features - in_features.max(axis=dim, keepdims=True))
    return exps / reduce_sum(exps, -1)
