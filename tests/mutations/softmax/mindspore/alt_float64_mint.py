"""mint's torch-like API, computed in float64 and cast back to the input's dtype at the end."""

import mindspore
from mindspore import mint


def run_softmax(in_features, dim):
    x = in_features.astype(mindspore.float64)
    shifted = x - mint.max(x, dim=dim, keepdim=True)[0]
    exps = mint.exp(shifted)
    return (exps / mint.sum(exps, dim=dim, keepdim=True)).astype(in_features.dtype)
