"""Seed 001's opening lines kept at the top of the module, as a student on an Ascend machine (ModelArts) writes
them: `mindspore.set_context(device_target="Ascend")`, `set_context(device_id=0)` and `mindspore.run_check()`,
then a softmax that subtracts the row's maximum. Correct. On the grading CPU the first line raised
"Unsupported device target Ascend" at import and every exercise failed; grading (and `attnlab check`) keeps
the device and mode it chose, ignoring the module's."""

import mindspore
from mindspore import ops

mindspore.set_context(device_target="Ascend")
mindspore.set_context(device_id=0)
mindspore.run_check()


def run_softmax(in_features, dim):
    exps = ops.exp(in_features - in_features.max(axis=dim, keepdims=True))
    return exps / exps.sum(axis=dim, keepdims=True)
