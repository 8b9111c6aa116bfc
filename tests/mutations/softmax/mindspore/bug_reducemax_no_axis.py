"""The student builds the shift with `ops.ReduceMax(keep_dims=True)` and calls it without an axis: it reduces
over EVERY axis, so each slice is shifted by the maximum of the whole tensor and slices far below it
underflow to 0/0."""

from mindspore import ops

DIAGNOSIS = "global_max"

reduce_max = ops.ReduceMax(keep_dims=True)


def run_softmax(in_features, dim):
    exps = ops.exp(in_features - reduce_max(in_features))
    return exps / exps.sum(axis=dim, keepdims=True)
