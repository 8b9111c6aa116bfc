"""A Dropout layer object with train()/eval() modes, as NumPy courses that build their own layers write it
(CS231n's dropout_forward with a mode flag): the keep mask is `rng.uniform(size=...) > p` as 0./1. floats,
multiplied in and divided by 1 - p. Correct: an entry is kept with probability 1 - p and scaled by 1/(1-p);
evaluation mode returns a copy."""

import numpy as np


class Dropout:
    def __init__(self, p, rng=None):
        self.p = p
        self.rng = rng if rng is not None else np.random.default_rng()
        self.training = True

    def train(self):
        self.training = True
        return self

    def eval(self):
        self.training = False
        return self

    def __call__(self, x):
        if not self.training or self.p == 0.0:
            return x.copy()
        if self.p == 1.0:
            return np.zeros_like(x)
        mask = (self.rng.uniform(size=x.shape) > self.p).astype(x.dtype)
        return x * mask / (1.0 - self.p)


def run_dropout(in_features, p, training=True, generator=None):
    layer = Dropout(p, rng=generator)
    layer.train() if training else layer.eval()
    return layer(in_features).astype(in_features.dtype)
