"""Floods stdout and stderr."""
import sys


def run_softmax(in_features, dim):
    chunk = "spam " * 20000
    for _ in range(20000):
        sys.stdout.write(chunk)
        sys.stderr.write(chunk)
    raise NotImplementedError
