"""The likely cause of a gradient that differs from the reference's, where its shape says one: NaN where the
reference's is finite, zero everywhere, or the reference's times a constant. The student's gradient is
untrusted data: anything not a float tensor of the reference's shape gets no cause."""

import torch

from attnlab.core.i18n import Message

SCALE_RTOL = 1e-4  # how exactly a gradient must be a multiple of the reference's to be called one


def gradient_cause(got: object, expected: torch.Tensor, name: str) -> Message | None:
    """A "Likely cause: …" line for the gradient with respect to `name`, or None when none fits."""
    if not (isinstance(got, torch.Tensor) and got.is_floating_point() and got.shape == expected.shape):
        return None
    got, expected = got.detach().to(torch.float64), expected.detach().to(torch.float64)
    finite = torch.isfinite(expected)
    if bool((~torch.isfinite(got) & finite).any()):
        return _likely(Message("cause_gradient_nan"))
    if not bool(finite.all()) or not bool(torch.isfinite(got).all()) or not bool(expected.abs().max() > 0):
        return None
    if bool(got.abs().max() == 0):
        return _likely(Message("cause_gradient_zero", {"name": name}))
    factor = float((got * expected).sum() / (expected * expected).sum())
    if abs(factor - 1) > 10 * SCALE_RTOL and torch.allclose(got, factor * expected, rtol=SCALE_RTOL,
                                                            atol=SCALE_RTOL * float(got.abs().max())):
        return _likely(Message("cause_gradient_scaled", {"factor": f"{factor:.4g}"}))
    return None


def _likely(cause: Message) -> Message:
    return Message("diagnosis", {"message": cause})
