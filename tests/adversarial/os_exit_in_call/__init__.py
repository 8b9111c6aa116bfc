"""Kills its own process with status 0 in the middle of a call."""
import os


def run_softmax(in_features, dim):
    os._exit(0)
