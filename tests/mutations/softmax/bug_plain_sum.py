"""Seed 001 §3.3.1's first normalisation, scores / scores.sum(): the weights sum to 1 but can be negative
or huge, and it is not a softmax at all."""

DIAGNOSIS = "plain_sum"


def run_softmax(in_features, dim):
    return in_features / in_features.sum(dim=dim, keepdim=True)
