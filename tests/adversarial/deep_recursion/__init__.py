"""Recurses until the C stack gives out."""
import sys

sys.setrecursionlimit(10**8)


def run_softmax(in_features, dim):
    def down(n):
        return down(n + 1) + 1
    return down(0)
