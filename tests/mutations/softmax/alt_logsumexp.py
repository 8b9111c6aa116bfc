"""softmax(x) = exp(x - logsumexp(x)): one stable reduction instead of max then sum (logsumexp subtracts
the maximum internally), the form log-space code uses."""

import torch

# Values agree to ~1e-5 relative (within the spec's rtol 1e-4), but harness/properties.py's
# softmax_normalised demands |sum - 1| <= 1e-5 at scale 300, where lse = max + log(sum) is rounded at
# |x| ~ 1000 (float32: ~6e-5). Proposed: compare the sums with the spec's float32 rtol (1e-4).


def run_softmax(in_features, dim):
    return torch.exp(in_features - torch.logsumexp(in_features, dim=dim, keepdim=True))
