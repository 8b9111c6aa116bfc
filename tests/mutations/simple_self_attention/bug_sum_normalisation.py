"""Seed 001 §3.3.1 step 2's first try: weights = scores / scores.sum(). They sum to 1 but are not a
softmax (and are negative when scores are)."""

DIAGNOSIS = "sum_normalisation"


def run_simple_self_attention(inputs):
    scores = inputs @ inputs.transpose(-2, -1)
    weights = scores / scores.sum(dim=-1, keepdim=True)
    return weights @ inputs
