"""Wrong weight-free self-attention (seed 001 §3.3)."""

import math

from reference.softmax import run_softmax


def scaled_scores(inputs):
    """Divides the scores by √d_in as in scaled dot-product attention; this exercise has no scaling."""
    scores = inputs @ inputs.transpose(-2, -1) / math.sqrt(inputs.shape[-1])
    return run_softmax(scores, dim=-1) @ inputs


def softmax_over_dim0(inputs):
    """Softmax over dim 0 (seed 001's softmax_naive uses axis=0): a matrix's queries, a batch's batch axis."""
    scores = inputs @ inputs.transpose(-2, -1)
    return run_softmax(scores, dim=0) @ inputs


def sum_normalisation(inputs):
    """Seed 001 §3.3.1 step 2, first try: weights = scores / scores.sum() instead of a softmax."""
    scores = inputs @ inputs.transpose(-2, -1)
    return scores / scores.sum(dim=-1, keepdim=True) @ inputs
