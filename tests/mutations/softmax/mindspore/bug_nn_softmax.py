"""The student reaches for seed 001's `nn.Softmax(axis=...)`, the very function the exercise asks them to write:
a forbidden call, whatever it returns."""

from mindspore import nn

DIAGNOSIS = None


def run_softmax(in_features, dim):
    return nn.Softmax(axis=dim)(in_features)
