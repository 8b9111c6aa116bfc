"""triton_flash_forward: its law (O is attention and L its log-sum-exp, for drawn shapes), checked here in
float64 without the reference. Few draws: each kernel launch runs in Triton's interpreter on the CPU."""

import math

import torch

from attnlab.core.i18n import Message
from attnlab.core.laws import drawn, expect_close, law, noise

MESSAGES = {
    "not_attention": {
        "en": "Q {q}, K {k}, is_causal={is_causal}: {name} differs from {what} computed in float64",
        "zh": "Q {q}，K {k}，is_causal={is_causal}：{name} 与用 float64 计算的 {what} 不同"},
}


def _shapes() -> dict:
    from hypothesis import strategies as st

    return {"batch": st.integers(1, 2), "queries": st.integers(1, 40), "extra_keys": st.integers(0, 24),
            "d": st.sampled_from([16, 32]), "is_causal": st.booleans(), "seed": st.integers(0, 2**31)}


def scaled_scores(Q: torch.Tensor, K: torch.Tensor, is_causal: bool) -> torch.Tensor:
    """Q Kᵀ / √d in float64, -inf where a query may not attend (bottom-right causal alignment)."""
    s = Q.double() @ K.double().transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if is_causal:
        queries, keys = s.shape[-2:]
        s = s.masked_fill(~torch.ones(queries, keys, dtype=torch.bool).tril(diagonal=keys - queries), float("-inf"))
    return s


@law(draws=_shapes)
def triton_flash_equals_attention(ctx, examples: int = 4) -> None:
    """O equals softmax(Q Kᵀ / √d) V and L its log-sum-exp, for drawn lengths (tiles that do not divide them)."""
    calls = []
    for e in drawn("triton_flash_equals_attention", examples):
        b, q, k, d, seed = e["batch"], e["queries"], e["queries"] + e["extra_keys"], e["d"], e["seed"]
        calls.append({"Q": noise(torch.empty(b, q, d), seed) * 1.5, "K": noise(torch.empty(b, k, d), seed + 1) * 1.5,
                      "V": noise(torch.empty(b, k, d), seed + 2), "is_causal": e["is_causal"]})
    for call, (O, L) in zip(calls, ctx.outputs(calls)):
        s = scaled_scores(call["Q"], call["K"], call["is_causal"])
        about = {"q": tuple(call["Q"].shape), "k": tuple(call["K"].shape), "is_causal": call["is_causal"]}
        for name, got, expected, what in (("O", O, torch.softmax(s, -1) @ call["V"].double(), "softmax(Q Kᵀ / √d) V"),
                                          ("L", L, torch.logsumexp(s, -1), "logsumexp(Q Kᵀ / √d)")):
            expect_close(ctx, got, expected,
                         Message("triton_flash_forward.not_attention", {**about, "name": name, "what": what}))
