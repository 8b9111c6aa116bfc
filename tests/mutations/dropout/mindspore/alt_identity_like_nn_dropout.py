"""Written after MindSpore's own nn.Dropout.construct, `if not self.training or self.p == 0: return x`: the
input tensor itself in eval mode and at p = 0 (seed 001's dropout layer behaves so), else a keep mask from
ops.UniformReal seeded with `generator`, the survivors divided by 1 - p."""

from mindspore import ops


def run_dropout(in_features, p, training=True, generator=None):
    if not training or p == 0.0:
        return in_features
    if p == 1.0:
        return ops.zeros_like(in_features)
    seed = 0 if generator is None else generator
    noise = ops.UniformReal(seed=seed)(in_features.shape)
    keep = (noise >= p).astype(in_features.dtype)
    return in_features * keep / (1.0 - p)
