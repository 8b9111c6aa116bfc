"""Reserves far more memory than the machine has, 2 GB at a time."""
import torch


def run_softmax(in_features, dim):
    hoard = []
    while True:
        hoard.append(torch.empty(1 << 29))
