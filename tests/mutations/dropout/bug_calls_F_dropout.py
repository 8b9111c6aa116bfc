"""Calls torch.nn.functional.dropout, which this exercise forbids (and which cannot take a generator)."""

import torch.nn.functional as F

DIAGNOSIS = None


def run_dropout(in_features, p, training=True, generator=None):
    return F.dropout(in_features, p=p, training=training)
