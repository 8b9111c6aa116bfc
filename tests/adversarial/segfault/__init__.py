"""Dereferences a null pointer."""
import ctypes


def run_softmax(in_features, dim):
    return ctypes.string_at(0)
